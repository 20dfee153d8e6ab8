/// An error in a GraphQL response (`{"message", "locations", "path", "extensions"}`): a request error (no data)
/// or a field error (that field's value null).
public struct GraphQLError: Error, Sendable, Hashable {
    public var message: String
    public var locations: [GraphQLLocation]
    public var path: [GraphQLPathElement]?
    /// Parse's error code and whatever else a client may read (`{"code": 101}`).
    public var extensions: GraphQLData?

    public init(_ message: String, locations: [GraphQLLocation] = [], path: [GraphQLPathElement]? = nil,
                extensions: GraphQLData? = nil) {
        self.message = message
        self.locations = locations
        self.path = path
        self.extensions = extensions
    }

    public init(_ syntax: GraphQLSyntaxError) {
        self.init(syntax.message, locations: [syntax.location])
    }

    public var data: GraphQLData {
        var members = [GraphQLObjectMember("message", .string(message))]
        if !locations.isEmpty {
            members.append(GraphQLObjectMember("locations", .list(locations.map {
                .object([GraphQLObjectMember("line", .int($0.line)), GraphQLObjectMember("column", .int($0.column))])
            })))
        }
        if let path {
            members.append(GraphQLObjectMember("path", .list(path.map {
                switch $0 {
                case .key(let key): .string(key)
                case .index(let index): .int(index)
                }
            })))
        }
        if let extensions { members.append(GraphQLObjectMember("extensions", extensions)) }
        return .object(members)
    }
}

/// A resolver's failure with a message and extensions of its own choosing (a Parse error's code); any other error a
/// resolver throws is reported by its description.
public protocol GraphQLReportableError: Error {
    var graphQLMessage: String { get }
    var graphQLExtensions: GraphQLData? { get }
}
