import Contracts
import ParseGraphQL
import ParseWire
import Query
import ServiceKit
import Storage

/// parse-server's `/graphql-config` (master key): `GET` answers the GraphQL configuration (`{}` when none was
/// set), `PUT {"params": {...}}` checks it with parse-server's rules and sets the keys it has, keeping the others, as
/// parse-server's update of `_GraphQLConfig` does. One row, not a class: it is no object a client could find.
struct GraphQLConfigHandler {
    let identity: Identity

    static let migration = Migration(version: 16, name: "graphql config", sql: """
        CREATE TABLE IF NOT EXISTS graphql_config (
            id int PRIMARY KEY CHECK (id = 1),
            config jsonb NOT NULL DEFAULT '{}'
        );
        """)

    func handle(_ request: RESTRequest, on connection: PostgresConnection) async throws -> RESTResponse {
        guard identity.isMaster || identity.isReadOnlyMaster else { return SchemasHandler.masterKeyRequired }
        switch request.method {
        case "GET":
            let row = try await connection.query("SELECT config::text AS config FROM graphql_config WHERE id = 1").first
            return PostsHandler.json(200, row?["config"].flatMap { JSONValue.parse($0) } ?? .object([:]))
        case "PUT":
            guard identity.isMaster else {
                throw ParseError(.operationForbidden, "read-only masterKey isn't allowed to update the GraphQL config.")
            }
            let params = try RequestBody.object(request.body)["params"]
            if let problem = ParseGraphQLConfig.problems(of: params) { throw ParseError(.invalidJSON, problem) }
            _ = try await connection.query("""
                INSERT INTO graphql_config (id, config) VALUES (1, $1::jsonb)
                ON CONFLICT (id) DO UPDATE SET config = graphql_config.config || $1::jsonb
                """, [params?.compactText ?? "{}"])
            return PostsHandler.json(200, .object(["response": .object(["result": .bool(true)])]))
        default:
            throw ParseError.noSuchRoute(request.method, "/\(request.path)")
        }
    }
}
