import Contracts
import Foundation
import ParseWire
import Runtime
import Storage
@testable import PostsCore

/// A scratch posts database on the test stack's PostgreSQL (`PARSE_TEST_DATABASE_URL`), migrated like the
/// service's own, and calls straight into the handler with any identity.
enum PostsDatabase {
    static let url = ProcessInfo.processInfo.environment["PARSE_TEST_DATABASE_URL"] ?? ""
    static let isConfigured = ProcessInfo.processInfo.environment["PARSE_TEST_DATABASE_URL"] != nil
    static let logger = Logger(service: "posts-tests", level: .warning)

    static func withScratch<T: Sendable>(_ body: (PostgresPool) async throws -> T) async throws -> T {
        let name = "posts_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        let databaseURL = url(database: name)
        try await PostgresDatabase.ensureExists(url: databaseURL, logger: logger)
        let pool = PostgresPool(configuration: PostgresConfiguration(url: databaseURL, poolSize: 4), logger: logger)
        do {
            _ = try await Migrator.migrate(PostsService.definition.migrations, on: pool, logger: logger)
            let value = try await body(pool)
            await pool.close()
            try await drop(name)
            return value
        } catch {
            await pool.close()
            try? await drop(name)
            throw error
        }
    }

    static func url(database: String) -> String {
        guard var components = URLComponents(string: url) else { return url + " dbname=\(database)" }
        components.path = "/" + database
        return components.string ?? url
    }

    static func drop(_ database: String) async throws {
        let admin = try await PostgresConnection.connect(url: url)
        _ = try await admin.query("DROP DATABASE IF EXISTS \"\(database)\" WITH (FORCE)")
        await admin.close()
    }

    static func call(_ pool: PostgresPool, _ method: String, _ path: String, _ body: String? = nil,
                     query: [String: String] = [:], as identity: Identity = .anonymous) async throws -> RESTResponse {
        let context = RequestContext(identity: identity, serverURL: "http://127.0.0.1:1337/parse",
                                     configuration: PostsConfiguration(), requestId: "test")
        let request = RESTRequest(method: method, path: path, query: query, body: body, serverURL: context.serverURL)
        return try await pool.withConnection { connection in
            try await PostsHandler(context: context).handle(request, on: connection)
        }
    }

    static func json(_ response: RESTResponse) -> JSONValue { JSONValue.parse(response.body) ?? .null }
}
