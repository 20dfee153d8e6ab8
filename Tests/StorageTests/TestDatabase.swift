import Foundation
import Runtime
import Storage

/// The PostgreSQL the tests run against, from `PARSE_TEST_DATABASE_URL`.
enum TestDatabase {
    static let url = ProcessInfo.processInfo.environment["PARSE_TEST_DATABASE_URL"] ?? ""
    static let isConfigured = ProcessInfo.processInfo.environment["PARSE_TEST_DATABASE_URL"] != nil
    static let logger = Logger(service: "storage-tests", level: .warning)

    /// A name no other test uses, so tests can run in parallel against one database.
    static func uniqueName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
    }

    /// The test URL with its database and/or application name replaced (URI or key=value form).
    static func url(database: String? = nil, applicationName: String? = nil) -> String {
        if url.contains("://"), var components = URLComponents(string: url) {
            if let database { components.path = "/" + database }
            if let applicationName {
                components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "application_name", value: applicationName)]
            }
            return components.string ?? url
        }
        var conninfo = url
        if let database { conninfo += " dbname=\(database)" }
        if let applicationName { conninfo += " application_name=\(applicationName)" }
        return conninfo
    }

    static func pool(size: Int = 4, database: String? = nil, applicationName: String? = nil) -> PostgresPool {
        PostgresPool(configuration: PostgresConfiguration(url: url(database: database, applicationName: applicationName),
                                                          poolSize: size),
                     logger: logger)
    }

    /// Creates a fresh database, runs `body` with its name, then drops it.
    static func withScratchDatabase<T: Sendable>(_ prefix: String, _ body: (String) async throws -> T) async throws -> T {
        let name = uniqueName(prefix)
        try await PostgresDatabase.ensureExists(url: url(database: name), logger: logger)
        do {
            let value = try await body(name)
            try await drop(name)
            return value
        } catch {
            try? await drop(name)
            throw error
        }
    }

    /// Creates a table of `columns` with a fresh name, runs `body` on a connection of its own, then drops it.
    static func withTable(_ prefix: String, _ columns: String,
                          _ body: (PostgresConnection, String) async throws -> Void) async throws {
        let connection = try await PostgresConnection.connect(url: url)
        let table = uniqueName(prefix)
        _ = try await connection.query("CREATE TABLE \(table) (\(columns))")
        var failure: (any Error)?
        do { try await body(connection, table) } catch { failure = error }
        _ = try? await connection.query("DROP TABLE \(table)")
        await connection.close()
        if let failure { throw failure }
    }

    static func drop(_ database: String) async throws {
        let admin = try await PostgresConnection.connect(url: url)
        _ = try await admin.query("DROP DATABASE IF EXISTS \"\(database)\" WITH (FORCE)")
        await admin.close()
    }
}

struct ExpectedFailure: Error {}
