import Contracts
import Foundation
import ParseWire
import Runtime
import ScratchDatabase
import Storage
@testable import PostsCore

/// A scratch posts database on the test stack's PostgreSQL (`PARSE_TEST_DATABASE_URL`), migrated like the
/// service's own, and calls straight into the handler with any identity.
enum PostsDatabase {
    static let isConfigured = ScratchDatabase.isConfigured
    static let logger = Logger(service: "posts-tests", level: .warning)

    static func withScratch<T: Sendable>(_ body: (PostgresPool) async throws -> T) async throws -> T {
        try await ScratchDatabase.withPool("posts", migrations: PostsService.migrations, poolSize: 4,
                                           logger: logger, body)
    }

    static func call(_ pool: PostgresPool, _ method: String, _ path: String, _ body: String? = nil,
                     query: [String: String] = [:], as identity: Identity = .anonymous,
                     configuration: PostsConfiguration = PostsConfiguration(),
                     schemas: SchemaCache = SchemaCache()) async throws -> RESTResponse {
        var made = RequestContext(identity: identity, serverURL: "http://127.0.0.1:1337/parse",
                                  configuration: configuration, requestId: "test")
        made.schemas = schemas
        let context = made
        let request = RESTRequest(method: method, path: path, query: query, body: body, serverURL: context.serverURL)
        return try await pool.withConnection { connection in
            try await PostsHandler(context: context).handle(request, on: connection)
        }
    }

    static func json(_ response: RESTResponse) -> JSONValue { JSONValue.parse(response.body) ?? .null }
}
