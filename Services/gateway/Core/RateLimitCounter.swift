import Foundation
import Runtime
import Storage

/// Requests counted per rule, zone key and fixed window, in PostgreSQL, so every gateway replica adds to the same
/// count: one statement per limited request, on the database's clock (replicas' clocks may differ). The table is
/// unlogged: counts are worth no WAL, and a PostgreSQL crash that empties it only resets the windows.
final class RateLimitCounter: Sendable {
    static let migration = Migration(version: 1, name: "rate limit hits", sql: """
        CREATE UNLOGGED TABLE IF NOT EXISTS rate_limit_hits (
            limit_key  text NOT NULL,
            window_index bigint NOT NULL,
            window_end timestamptz NOT NULL,
            hits       bigint NOT NULL,
            PRIMARY KEY (limit_key, window_index)
        );
        CREATE INDEX IF NOT EXISTS rate_limit_hits_end ON rate_limit_hits (window_end);
        """)
    static let hitSQL = """
        WITH now AS (SELECT floor(extract(epoch FROM clock_timestamp()) * 1000 / $2::bigint)::bigint AS window_index)
        INSERT INTO rate_limit_hits (limit_key, window_index, window_end, hits)
        SELECT $1, window_index, to_timestamp((window_index + 1) * $2::bigint / 1000.0), 1 FROM now
        ON CONFLICT (limit_key, window_index) DO UPDATE SET hits = rate_limit_hits.hits + 1
        RETURNING hits
        """
    static let cleanupSQL = """
        DELETE FROM rate_limit_hits WHERE (limit_key, window_index) IN (
            SELECT limit_key, window_index FROM rate_limit_hits WHERE window_end < now() LIMIT 1000)
        """

    let pool: PostgresPool
    private let url: String
    private let logger: Logger

    init(url: String, logger: Logger) {
        self.url = url
        self.logger = logger
        pool = PostgresPool(configuration: PostgresConfiguration(url: url, poolSize: 2), logger: logger)
    }

    /// Creates the database and the table if missing.
    func prepare() async throws {
        try await PostgresDatabase.ensureExists(url: url, logger: logger)
        _ = try await Migrator.migrate([Self.migration], on: pool, logger: logger)
    }

    /// Counts one request for `key` in the current window of `windowMilliseconds`; the count so far, this one
    /// included.
    func hit(_ key: String, windowMilliseconds: Int) async throws -> Int {
        let result = try await pool.query(Self.hitSQL, [key, windowMilliseconds])
        return result.first?.int("hits") ?? 0
    }

    /// Deletes the counts of past windows, a bounded batch per statement, once a minute.
    func runCleanup() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: .seconds(60))
                while try await pool.query(Self.cleanupSQL).affectedRows == 1000 {}
            } catch is CancellationError {
                return
            } catch {
                logger.warning("rate limit cleanup failed", ["error": "\(error)"])
            }
        }
    }

    func close() async { await pool.close() }
}
