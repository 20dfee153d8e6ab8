/// A document that is not GraphQL, with where the parser stopped. The message reads as graphql-js writes its own
/// (`Syntax Error: Expected Name, found <EOF>.`), which parse-server's clients see.
public struct GraphQLSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var location: GraphQLLocation

    public init(_ detail: String, at location: GraphQLLocation) {
        message = "Syntax Error: \(detail)"
        self.location = location
    }

    public var description: String { "\(message) (\(location.line):\(location.column))" }
}
