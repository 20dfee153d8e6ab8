import ScratchDatabase
@testable import ServiceKit
import Storage
import Synchronization
import Testing

/// A service's migrations at start-up meet a database whose node changes role under them (a cluster forming): a
/// transient failure waits for the database again and runs them again, instead of ending the service.
@Suite(.enabled(if: ScratchDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL"))
struct StartupMigrationsTests {
    @Test func aMigrationWhoseSessionEndsIsRunAgain() async throws {
        try await ScratchDatabase.withPool("startup", migrations: [], logger: OutboxPruneTests.logger) { pool in
            // A sequence survives the rollback: the first run ends its own session, the second goes through.
            _ = try await pool.query("CREATE SEQUENCE startup_tries")
            let flaky = Migration(version: 1, name: "flaky", sql: """
                SELECT CASE WHEN nextval('startup_tries') = 1 THEN pg_terminate_backend(pg_backend_pid()) END;
                CREATE TABLE started (n int)
                """)
            let waits = Mutex(0)
            let applied = try await ServiceHost.migrate([flaky], on: pool, until: .now + .seconds(30),
                                                        logger: OutboxPruneTests.logger) { waits.withLock { $0 += 1 } }
            #expect(applied == [1])
            #expect(waits.withLock { $0 } == 1)
            #expect(try await pool.query("SELECT count(*) AS n FROM started").rows.first?["n"] == "0")
        }
    }

    @Test func aFailureOfTheMigrationItselfEndsTheStart() async throws {
        try await ScratchDatabase.withPool("startup", migrations: [], logger: OutboxPruneTests.logger) { pool in
            let broken = Migration(version: 1, name: "broken", sql: "CREATE TABLE started (n no_such_type)")
            await #expect(throws: PostgresError.self) {
                _ = try await ServiceHost.migrate([broken], on: pool, until: .now + .seconds(30),
                                                  logger: OutboxPruneTests.logger) {}
            }
        }
    }
}
