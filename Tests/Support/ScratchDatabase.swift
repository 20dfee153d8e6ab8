import Foundation
import Runtime
import Storage

/// Databases of their own on the test stack's PostgreSQL (`PARSE_TEST_DATABASE_URL`, set by `deploy/stack test`),
/// so that tests needing a fresh schema can run in parallel and leave nothing behind.
public enum ScratchDatabase {
    public static let baseURL = ProcessInfo.processInfo.environment["PARSE_TEST_DATABASE_URL"]
    public static var isConfigured: Bool { baseURL != nil }

    /// Creates a database named `prefix` and a random suffix, migrates it, runs `body` with a pool on it whose
    /// sessions start with `settings`, then closes the pool and drops the database, whatever happens.
    public static func withPool<T: Sendable>(
        _ prefix: String, migrations: [Migration] = [], poolSize: Int = 2, settings: [String: String] = [:],
        logger: Logger, _ body: (PostgresPool) async throws -> T
    ) async throws -> T {
        let name = prefix + "_" + Hex.random(byteCount: 6)
        let url = url(database: name)
        try await PostgresDatabase.ensureExists(url: url, logger: logger)
        let pool = PostgresPool(configuration: PostgresConfiguration(url: url, poolSize: poolSize, settings: settings),
                                logger: logger)
        let result: Result<T, any Error>
        do {
            _ = try await Migrator.migrate(migrations, on: pool, logger: logger)
            result = .success(try await body(pool))
        } catch {
            result = .failure(error)
        }
        await pool.close()
        try? await drop(name)
        return try result.get()
    }

    /// The base URL with `database` in place of its own (URI or key=value form).
    public static func url(database: String) -> String {
        let base = baseURL ?? ""
        guard base.contains("://"), var components = URLComponents(string: base) else { return base + " dbname=\(database)" }
        components.path = "/" + database
        return components.string ?? base
    }

    public static func drop(_ database: String) async throws {
        let admin = try await PostgresConnection.connect(url: baseURL ?? "")
        _ = try? await admin.query("DROP DATABASE IF EXISTS \"\(database)\" WITH (FORCE)")
        await admin.close()
    }
}
