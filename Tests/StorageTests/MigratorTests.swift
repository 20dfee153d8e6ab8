import Storage
import Testing

@Suite(.enabled(if: TestDatabase.isConfigured))
struct MigratorTests {
    static let migrations = [
        Migration(version: 2, name: "add items", sql: "CREATE TABLE items (id bigserial PRIMARY KEY, owner text)"),
        Migration(version: 1, name: "create owners", sql: """
            CREATE TABLE owners (name text PRIMARY KEY);
            INSERT INTO owners VALUES ('first');
            """),
    ]

    @Test func appliesOnceInVersionOrderAndIsIdempotent() async throws {
        try await TestDatabase.withScratchDatabase("migrate") { database in
            let pool = TestDatabase.pool(database: database)
            #expect(try await Migrator.migrate(Self.migrations, on: pool, logger: TestDatabase.logger) == [1, 2])
            #expect(try await Migrator.migrate(Self.migrations, on: pool, logger: TestDatabase.logger) == [])

            let third = Migration(version: 3, name: "index items", sql: "CREATE INDEX items_owner ON items (owner)")
            #expect(try await Migrator.migrate(Self.migrations + [third], on: pool, logger: TestDatabase.logger) == [3])

            let recorded = try await pool.query("SELECT version, name FROM schema_migrations ORDER BY version")
            #expect(recorded.rows.compactMap { $0.int("version") } == [1, 2, 3])
            #expect(recorded.rows.map { $0["name"] } == ["create owners", "add items", "index items"])
            #expect(try await pool.query("SELECT count(*) AS n FROM owners").first?.int("n") == 1)
            await pool.close()
        }
    }

    @Test func failedMigrationLeavesNoTrace() async throws {
        try await TestDatabase.withScratchDatabase("migrate_fail") { database in
            let pool = TestDatabase.pool(database: database)
            let broken = Migration(version: 3, name: "broken", sql: "CREATE TABLE half_done (n int); SELEC 1")
            let error = await #expect(throws: PostgresError.self) {
                try await Migrator.migrate(Self.migrations + [broken], on: pool, logger: TestDatabase.logger.with("expected", "syntax error"))
            }
            #expect(error?.sqlState == "42601")
            let recorded = try await pool.query("SELECT version FROM schema_migrations ORDER BY version")
            #expect(recorded.rows.compactMap { $0.int("version") } == [1, 2])
            let halfDone = try await pool.query("SELECT to_regclass('half_done') IS NULL AS absent")
            #expect(halfDone.first?.bool("absent") == true)
            // The lock was released: a corrected list applies.
            let fixed = Migration(version: 3, name: "fixed", sql: "CREATE TABLE half_done (n int)")
            #expect(try await Migrator.migrate(Self.migrations + [fixed], on: pool, logger: TestDatabase.logger) == [3])
            await pool.close()
        }
    }

    @Test func concurrentMigratorsApplyEachVersionOnce() async throws {
        try await TestDatabase.withScratchDatabase("migrate_race") { database in
            // Slow steps widen the window in which two replicas would otherwise both apply them.
            let slow = (1...3).map { version in
                Migration(version: version, name: "step \(version)",
                          sql: "SELECT pg_sleep(0.1); CREATE TABLE step_\(version) (n int)")
            }
            let first = TestDatabase.pool(database: database)
            let second = TestDatabase.pool(database: database)
            async let appliedByFirst = Migrator.migrate(slow, on: first, logger: TestDatabase.logger)
            async let appliedBySecond = Migrator.migrate(slow, on: second, logger: TestDatabase.logger)
            let applied = try await appliedByFirst + appliedBySecond
            #expect(applied.sorted() == [1, 2, 3])
            #expect(try await first.query("SELECT count(*) AS n FROM schema_migrations").first?.int("n") == 3)
            await first.close()
            await second.close()
        }
    }

    @Test func duplicateVersionsAreRejected() async throws {
        let pool = TestDatabase.pool(size: 1)
        let twins = [Migration(version: 1, name: "a", sql: "SELECT 1"), Migration(version: 1, name: "b", sql: "SELECT 2")]
        await #expect(throws: PostgresError.self) {
            try await Migrator.migrate(twins, on: pool, logger: TestDatabase.logger)
        }
        await pool.close()
    }
}
