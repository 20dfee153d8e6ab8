import Foundation
import Storage
import Testing

@Suite(.enabled(if: TestDatabase.isConfigured))
struct PostgresPoolTests {
    @Test func concurrentIncrementsAddUpExactly() async throws {
        let applicationName = TestDatabase.uniqueName("increments")
        let pool = TestDatabase.pool(size: 4, applicationName: applicationName)
        let table = TestDatabase.uniqueName("counter")
        _ = try await pool.query("CREATE TABLE \(table) (id int PRIMARY KEY, n bigint NOT NULL)")
        _ = try await pool.query("INSERT INTO \(table) VALUES (1, 0)")

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    _ = try await pool.query("UPDATE \(table) SET n = n + $1 WHERE id = 1", [1])
                }
            }
            try await group.waitForAll()
        }

        #expect(try await pool.query("SELECT n FROM \(table)").first?.int("n") == 50)
        #expect(try await ServerSessions.count(applicationName: applicationName) <= 4)
        _ = try await pool.query("DROP TABLE \(table)")
        await pool.close()
    }

    @Test func callersWaitWhileAllConnectionsAreBusy() async throws {
        let pool = TestDatabase.pool(size: 1)
        let started = Date()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask { _ = try await pool.query("SELECT pg_sleep(0.1)") }
            }
            try await group.waitForAll()
        }
        // One connection serves the three sleeps one after another.
        #expect(Date().timeIntervalSince(started) >= 0.3)
        await pool.close()
    }

    @Test func transactionRollsBackWhenTheClosureThrows() async throws {
        let pool = TestDatabase.pool()
        let table = TestDatabase.uniqueName("pool_tx")
        _ = try await pool.query("CREATE TABLE \(table) (n int)")

        await #expect(throws: ExpectedFailure.self) {
            try await pool.transaction { connection in
                _ = try await connection.query("INSERT INTO \(table) VALUES ($1)", [1])
                throw ExpectedFailure()
            }
        }
        let committed = try await pool.transaction { connection in
            try await connection.query("INSERT INTO \(table) VALUES ($1), ($2)", [2, 3]).affectedRows
        }
        #expect(committed == 2)
        let rows = try await pool.query("SELECT n FROM \(table) ORDER BY n")
        #expect(rows.rows.compactMap { $0.int("n") } == [2, 3])
        _ = try await pool.query("DROP TABLE \(table)")
        await pool.close()
    }

    @Test func transactionLeftOpenIsRolledBackOnReturn() async throws {
        let pool = TestDatabase.pool(size: 1)
        let table = TestDatabase.uniqueName("left_open")
        _ = try await pool.query("CREATE TABLE \(table) (n int)")
        try await pool.withConnection { connection in
            _ = try await connection.query("BEGIN")
            _ = try await connection.query("INSERT INTO \(table) VALUES (1)")
        }
        // The same (only) connection must now be outside any transaction, without the insert.
        #expect(try await pool.query("SELECT count(*) AS n FROM \(table)").first?.int("n") == 0)
        _ = try await pool.query("DROP TABLE \(table)")
        await pool.close()
    }

    @Test func sessionsStartWithTheConfiguredSettings() async throws {
        let pool = PostgresPool(
            configuration: PostgresConfiguration(url: TestDatabase.url(), poolSize: 2,
                                                 settings: ["enable_seqscan": "off", "application_name": "with a space"]),
            logger: TestDatabase.logger)
        // Both connections, each checked while the other is lent, so that each is a session of its own.
        try await pool.withConnection { first in
            try await pool.withConnection { second in
                for connection in [first, second] {
                    let row = try await connection.query(
                        "SELECT current_setting('enable_seqscan') AS scan, current_setting('application_name') AS name").first
                    #expect(row?["scan"] == "off")
                    #expect(row?["name"] == "with a space")
                }
            }
        }
        await pool.close()
    }

    @Test func recoversAfterTheServerDropsItsConnections() async throws {
        let applicationName = TestDatabase.uniqueName("recovery")
        let pool = TestDatabase.pool(size: 2, applicationName: applicationName)
        try await Self.useEveryConnection(of: pool, count: 2)
        #expect(try await ServerSessions.count(applicationName: applicationName) == 2)

        #expect(try await ServerSessions.terminate(applicationName: applicationName) == 2)
        // pg_terminate_backend only signals the backends: wait until they are really gone, else the pool's idle
        // check can run before the server has closed the sockets (that race is the mid-query test's case).
        let deadline = ContinuousClock.now + .seconds(5)
        while try await ServerSessions.count(applicationName: applicationName) > 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        // A backend leaves pg_stat_activity before its process exits and closes the socket; on a loaded machine
        // that gap is long enough for the next statement to find the socket still open.
        try await Task.sleep(for: .milliseconds(300))

        #expect(try await pool.query("SELECT 1 AS one").first?.int("one") == 1)
        try await Self.useEveryConnection(of: pool, count: 2)
        #expect(try await ServerSessions.count(applicationName: applicationName) == 2)
        await pool.close()
    }

    @Test func queryThatLosesItsConnectionFailsThenTheNextSucceeds() async throws {
        let applicationName = TestDatabase.uniqueName("midquery")
        let pool = TestDatabase.pool(size: 1, applicationName: applicationName)
        async let sleeper: Void = pool.withConnection { connection in
            _ = try await connection.query("SELECT pg_sleep(5)")
        }
        // Give the sleep time to start, then end its session under it.
        try await Task.sleep(for: .milliseconds(300))
        try await ServerSessions.terminate(applicationName: applicationName)
        do {
            try await sleeper
            Issue.record("the sleeping query should have failed")
        } catch let error as PostgresError {
            #expect(error.isConnectionFailure)
        }
        #expect(try await pool.query("SELECT 2 AS two").first?.int("two") == 2)
        await pool.close()
    }

    @Test func unreachableServerFailsWithConnectionFailure() async throws {
        let pool = PostgresPool(configuration: PostgresConfiguration(url: "postgres://postgres@127.0.0.1:1/x", poolSize: 2),
                                logger: TestDatabase.logger.with("expected", "connection refused"))
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    do {
                        _ = try await pool.query("SELECT 1")
                        return false
                    } catch let error as PostgresError {
                        return error.isConnectionFailure
                    }
                }
            }
            for try await isConnectionFailure in group { #expect(isConnectionFailure) }
        }
        await pool.close()
    }

    @Test func closedPoolRefusesCallers() async throws {
        let pool = TestDatabase.pool(size: 1)
        _ = try await pool.query("SELECT 1")
        await pool.close()
        let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
        #expect(error?.isConnectionFailure == true)
    }

    /// Holds `count` connections at once so that the pool must open (or reuse) all of them.
    private static func useEveryConnection(of pool: PostgresPool, count: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask { _ = try await pool.query("SELECT pg_sleep(0.2)") }
            }
            try await group.waitForAll()
        }
    }
}
