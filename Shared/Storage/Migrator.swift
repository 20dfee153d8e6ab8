import Runtime

/// Brings a database's schema up to date at start-up.
public enum Migrator {
    /// Identifies the migration lock among the database's advisory locks (any fixed number would do).
    static let advisoryLockKey: Int64 = 0x5061_7273_654D_6967

    /// Applies, in version order, the migrations not yet recorded in table `schema_migrations`, each in
    /// its own transaction together with its record; holds a PostgreSQL advisory lock meanwhile so that
    /// two replicas starting at once do not race. Idempotent. Returns the versions it applied.
    public static func migrate(_ migrations: [Migration], on pool: PostgresPool, logger: Logger) async throws -> [Int] {
        let ordered = try inVersionOrder(migrations)
        return try await pool.withConnection { connection in
            // A migration (or waiting for another replica's) may take longer than the statement_timeout that
            // bounds request work; the session's own setting comes back after.
            _ = try await connection.query("SET statement_timeout = 0")
            // A session lock: it also goes away if this process dies mid-way.
            _ = try await connection.query("SELECT pg_advisory_lock($1::bigint)", [advisoryLockKey])
            do {
                let applied = try await applyPending(ordered, on: connection, logger: logger)
                _ = try await connection.query("SELECT pg_advisory_unlock($1::bigint)", [advisoryLockKey])
                _ = try await connection.query("RESET statement_timeout")
                return applied
            } catch {
                if connection.isOpen {
                    _ = try? await connection.query("SELECT pg_advisory_unlock($1::bigint)", [advisoryLockKey])
                }
                throw error
            }
        }
    }

    private static func applyPending(_ migrations: [Migration], on connection: PostgresConnection,
                                     logger: Logger) async throws -> [Int] {
        try await connection.execute(script: """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version bigint PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        let recorded = try await connection.query("SELECT version FROM schema_migrations")
        let done = Set(recorded.rows.compactMap { $0.int("version") })
        var applied: [Int] = []
        for migration in migrations where !done.contains(migration.version) {
            let fields = ["migration.version": String(migration.version), "migration.name": migration.name]
            do {
                try await connection.transaction { connection in
                    try await connection.execute(script: migration.sql)
                    _ = try await connection.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                                                   [migration.version, migration.name])
                }
            } catch {
                logger.error("migration failed", fields.merging(["error": "\(error)"]) { _, new in new })
                throw error
            }
            logger.info("applied migration", fields)
            applied.append(migration.version)
        }
        return applied
    }

    private static func inVersionOrder(_ migrations: [Migration]) throws -> [Migration] {
        let ordered = migrations.sorted { $0.version < $1.version }
        for (previous, next) in zip(ordered, ordered.dropFirst()) where previous.version == next.version {
            throw PostgresError(sqlState: "42710", message: "two migrations share version \(next.version)")
        }
        return ordered
    }
}
