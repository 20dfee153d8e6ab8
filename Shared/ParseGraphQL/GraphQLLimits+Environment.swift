import GraphQL
import Runtime

extension GraphQLLimits {
    /// parse-server 9's `requestComplexity.graphQLDepth` and `graphQLFields`
    /// (`PARSE_SERVER_REQUEST_COMPLEXITY_GRAPHQL_DEPTH`, `_FIELDS`; -1 for none), for the gateway's queries and
    /// live's subscriptions alike.
    public static func fromEnvironment(_ env: Environment) throws -> GraphQLLimits {
        func limit(_ name: String) throws -> Int? {
            let key = "PARSE_SERVER_REQUEST_COMPLEXITY_" + name
            let value = try env.int(key, default: -1, in: -1...Int.max)
            guard value != 0 else { throw ConfigurationError("\(key) must be a positive integer or -1 to disable, got 0") }
            return value == -1 ? nil : value
        }
        return GraphQLLimits(maximumDepth: try limit("GRAPHQL_DEPTH"), maximumFields: try limit("GRAPHQL_FIELDS"))
    }
}
