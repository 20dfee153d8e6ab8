import GraphQL
import ParseWire

/// Errors as parse-server's GraphQL API reports them (`toGraphQLError`): a Parse error's message with its code in
/// `extensions`, anything else as an internal error, its text kept out of the answer.
public enum ParseGraphQLErrors {
    public static func reported(_ error: any Error) -> GraphQLError {
        switch error {
        case let known as GraphQLError: known
        case let parse as ParseError: GraphQLError(parse.message, extensions: .object([GraphQLObjectMember("code", .int(parse.code.rawValue))]))
        default: GraphQLError("Internal server error", extensions: .object([GraphQLObjectMember("code", .int(1))]))
        }
    }

    /// A resolver's body, its failure reported as above.
    static func resolving(_ info: GraphQLResolveInfo,
                          _ body: (ParseGraphQLContext) async throws -> any Sendable) async throws(GraphQLError) -> any Sendable {
        guard let context = info.context as? ParseGraphQLContext else { throw reported(ParseError(.internalServerError, "")) }
        do {
            return try await body(context)
        } catch {
            throw reported(error)
        }
    }
}
