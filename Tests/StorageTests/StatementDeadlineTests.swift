import Foundation
import Runtime
import Storage
import Testing

/// Statements stop at the deadline of the task that runs them (`Deadline.current`), or at the server's
/// `statement_timeout`, and say so with `DeadlineExceeded`.
@Suite(.enabled(if: TestDatabase.isConfigured))
struct StatementDeadlineTests {
    @Test func aStatementRunningPastItsDeadlineIsCancelledOnTheServer() async throws {
        let applicationName = TestDatabase.uniqueName("deadline")
        let pool = TestDatabase.pool(size: 1, applicationName: applicationName)
        let started = ContinuousClock.now
        let error = await #expect(throws: DeadlineExceeded.self) {
            try await Deadline.$current.withValue(.after(.milliseconds(300))) {
                _ = try await pool.query("SELECT pg_sleep(60)")
            }
        }
        print("pg_sleep(60) under a 300 ms deadline ended after \(started.millisecondsElapsedText) ms: \(String(describing: error))")
        #expect(error?.what == "the statement")
        // The session is usable at once, and nothing of ours is still running on the server.
        #expect(try await pool.query("SELECT 1 AS one").first?.int("one") == 1)
        #expect(try await Self.activeStatements(applicationName: applicationName, like: "%pg_sleep(60)%") == 0)
        await pool.close()
    }

    @Test func aDeadlineAlreadyPassedRunsNothing() async throws {
        let pool = TestDatabase.pool(size: 1)
        let table = TestDatabase.uniqueName("late")
        _ = try await pool.query("CREATE TABLE \(table) (id int)")
        await #expect(throws: DeadlineExceeded.self) {
            try await Deadline.$current.withValue(.after(.zero)) {
                _ = try await pool.query("INSERT INTO \(table) VALUES (1)")
            }
        }
        #expect(try await pool.query("SELECT count(*) AS n FROM \(table)").first?.int("n") == 0)
        _ = try await pool.query("DROP TABLE \(table)")
        await pool.close()
    }

    @Test func aCancelledTransactionIsRolledBack() async throws {
        let pool = TestDatabase.pool(size: 1)
        let table = TestDatabase.uniqueName("cancelled")
        _ = try await pool.query("CREATE TABLE \(table) (id int)")
        await #expect(throws: DeadlineExceeded.self) {
            try await Deadline.$current.withValue(.after(.milliseconds(300))) {
                try await pool.withConnection { connection in
                    try await connection.transaction { connection in
                        _ = try await connection.query("INSERT INTO \(table) VALUES (1)")
                        _ = try await connection.query("SELECT pg_sleep(60)")
                    }
                }
            }
        }
        #expect(try await pool.query("SELECT count(*) AS n FROM \(table)").first?.int("n") == 0)
        _ = try await pool.query("DROP TABLE \(table)")
        await pool.close()
    }

    @Test func aCallerWaitingForABusyPoolGivesUpAtItsDeadline() async throws {
        let pool = TestDatabase.pool(size: 1)
        let (holder, releasing) = await holdTheOnlyConnection(of: pool)
        let error = await #expect(throws: DeadlineExceeded.self) {
            try await Deadline.$current.withValue(.after(.milliseconds(200))) {
                _ = try await pool.query("SELECT 1")
            }
        }
        #expect(error?.what == "waiting for a database connection")
        releasing.yield()
        try await holder.value
        // The waiter that gave up is gone: the connection goes to the next caller.
        #expect(try await pool.query("SELECT 2 AS two").first?.int("two") == 2)
        await pool.close()
    }

    /// Waiters of different deadlines each give up at their own, whatever order they came in, and one that has
    /// time left keeps waiting until the connection comes back.
    @Test func waitersGiveUpEachAtItsOwnDeadline() async throws {
        let pool = TestDatabase.pool(size: 1)
        let (holder, releasing) = await holdTheOnlyConnection(of: pool)
        let started = ContinuousClock.now
        func waiter(_ milliseconds: Int) -> Task<(Duration, String)?, Never> {
            Task {
                do {
                    try await Deadline.$current.withValue(.after(.milliseconds(milliseconds))) {
                        _ = try await pool.query("SELECT 1")
                    }
                    return nil
                } catch {
                    return (ContinuousClock.now - started, "\(error)")
                }
            }
        }
        // Far apart, so that a busy machine's delays cannot swap the two.
        let late = waiter(2_000)
        // The later deadline waits first: the earlier one that comes after must not wait for its sweep.
        try await Task.sleep(for: .milliseconds(50))
        let early = waiter(200), patient = waiter(30_000)
        let gaveUpEarly = try #require(await early.value).0, gaveUpLate = try #require(await late.value).0
        #expect(gaveUpEarly >= .milliseconds(200) && gaveUpEarly < gaveUpLate)
        #expect(gaveUpLate >= .milliseconds(2_000))
        releasing.yield()
        try await holder.value
        let patientFailure = await patient.value
        #expect(patientFailure == nil, "the waiter with time left failed: \(patientFailure.map { "\($0)" } ?? "")")
        await pool.close()
    }

    /// A task that borrows the pool's one connection and keeps it until `releasing` yields; returns once it holds it.
    private func holdTheOnlyConnection(of pool: PostgresPool) async -> (Task<Void, any Error>, AsyncStream<Void>.Continuation) {
        let (held, holding) = AsyncStream.makeStream(of: Void.self)
        let (release, releasing) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await pool.withConnection { connection in
                _ = try await connection.query("SELECT 1")
                holding.yield()
                for await _ in release { break }
            }
        }
        for await _ in held { break }
        return (holder, releasing)
    }

    @Test func theServersStatementTimeoutAlsoEndsInDeadlineExceeded() async throws {
        let pool = PostgresPool(configuration: PostgresConfiguration(url: TestDatabase.url, poolSize: 1,
                                                                     settings: ["statement_timeout": "200"]),
                                logger: TestDatabase.logger)
        let error = await #expect(throws: DeadlineExceeded.self) {
            _ = try await pool.query("SELECT pg_sleep(60)")
        }
        #expect(error?.what.contains("statement_timeout") == true)
        await pool.close()
    }

    @Test func statementsWithTimeLeftRunAsBefore() async throws {
        let pool = TestDatabase.pool(size: 2)
        let sums = try await Deadline.$current.withValue(.after(.seconds(30))) {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for value in 0..<200 {
                    group.addTask { try await pool.query("SELECT $1::int AS v", [value]).first?.int("v") ?? -1 }
                }
                return try await group.reduce(0, +)
            }
        }
        #expect(sums == (0..<200).reduce(0, +))
        await pool.close()
    }

    private static func activeStatements(applicationName: String, like pattern: String) async throws -> Int {
        let admin = try await PostgresConnection.connect(url: TestDatabase.url)
        let result = try await admin.query(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND state = 'active' AND query LIKE $2",
            [applicationName, pattern])
        await admin.close()
        return result.first?.int("n") ?? -1
    }
}
