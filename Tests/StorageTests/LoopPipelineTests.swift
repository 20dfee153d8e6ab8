import Foundation
import Runtime
@testable import Storage
import Testing

/// Pipelines sent by a task that runs on an I/O loop's thread run there, in libpq's non-blocking mode, the loop
/// waiting for the session's socket (`LoopPipeline`); what a pipeline does is the same as on the connection's
/// queue (`PipelineTests`).
@Suite(.enabled(if: TestDatabase.isConfigured), .serialized, .timeLimit(.minutes(1)))
struct LoopPipelineTests {
    private func onLoop<T: Sendable>(_ loop: TestSocketLoop, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task(executorPreference: loop) { try await body() }.value
    }

    @Test func aPipelineRunsOnTheLoopWithItsResultsErrorsAndPreparedStatements() async throws {
        let loop = TestSocketLoop.start()
        defer { loop.stop() }
        let pool = TestDatabase.pool(size: 1)
        let table = TestDatabase.uniqueName("loop")
        _ = try await pool.query("CREATE TABLE \(table) (id int PRIMARY KEY, label text)")
        let loopTripsBefore = StorageMetrics.roundTripsOnLoop.value

        let (labels, threads) = try await onLoop(loop) {
            try await pool.withConnection { connection in
                // A connection just borrowed is checked with its first statement, there too.
                _ = try await connection.pipeline([PostgresStatement("SELECT 1")])
                var threads = [loop.isCurrent]
                for id in 1...3 {   // the same text again and again: prepared on its second use, in the pipeline
                    _ = try await connection.pipeline([PostgresStatement("INSERT INTO \(table) VALUES ($1, $2)", [id, "n\(id)"])])
                    threads.append(loop.isCurrent)
                }
                let failed = await #expect(throws: PostgresError.self) {
                    _ = try await connection.pipeline([PostgresStatement("INSERT INTO \(table) VALUES ($1, $2)", [4, "four"]),
                                                       PostgresStatement("INSERT INTO \(table) VALUES ($1, $2)", [1, "again"])])
                }
                #expect(failed?.sqlState == "23505")
                threads.append(loop.isCurrent)
                let read = try await connection.pipeline([PostgresStatement("SELECT label FROM \(table) ORDER BY id"),
                                                          PostgresStatement("SELECT count(*) AS n FROM \(table)")])
                threads.append(loop.isCurrent)
                return (read[0].rows.compactMap { $0["label"] } + read[1].rows.compactMap { $0["n"] }, threads)
            }
        }
        // The failed pipeline was one implicit transaction: its first insert is gone with the second.
        #expect(labels == ["n1", "n2", "n3", "3"])
        #expect(threads == [true, true, true, true, true, true])
        #expect(StorageMetrics.roundTripsOnLoop.value - loopTripsBefore >= 6)
        _ = try await pool.query("DROP TABLE \(table)")
        await pool.close()
    }

    /// `query` goes the same way, one statement to a pipeline: what it does is what `PreparedStatementTests` checks
    /// on the queue, and a statement that refuses to run in a transaction block still runs alone.
    @Test func queriesOnTheLoopArePreparedAndFollowTableChanges() async throws {
        let loop = TestSocketLoop.start()
        defer { loop.stop() }
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        let table = TestDatabase.uniqueName("loopquery")
        let loopTripsBefore = StorageMetrics.roundTripsOnLoop.value
        let answers = try await onLoop(loop) {
            _ = try await connection.query("CREATE TABLE \(table) (id text PRIMARY KEY, n integer)")
            _ = try await connection.query("INSERT INTO \(table) VALUES ('a', 1), ('b', 2)")
            let select = "SELECT n FROM \(table) WHERE id = $1"
            var answers: [String?] = []
            for id in ["a", "b", "a"] { answers.append(try await connection.query(select, [id]).first?["n"]) }
            answers.append(try await connection.query(
                "SELECT count(*) AS n FROM pg_prepared_statements WHERE statement = $1", [select]).first?["n"])
            // The column's type changes under the prepared statement: the next run still answers, with the new type.
            _ = try await connection.query("ALTER TABLE \(table) ALTER COLUMN n TYPE text USING 'x' || n::text")
            answers.append(try await connection.query(select, ["b"]).first?["n"])
            _ = try await connection.query("CREATE INDEX CONCURRENTLY ON \(table) (n)")
            answers.append(try await connection.query(
                "SELECT count(*) AS n FROM pg_indexes WHERE tablename = $1", [table]).first?["n"])
            return answers
        }
        #expect(answers == ["1", "2", "1", "1", "x2", "2"])
        #expect(StorageMetrics.roundTripsOnLoop.value - loopTripsBefore >= 10)
        _ = try await connection.query("DROP TABLE \(table)")
        await connection.close()
    }

    @Test func aTransactionOnTheLoopCommitsAndRollsBack() async throws {
        let loop = TestSocketLoop.start()
        defer { loop.stop() }
        let pool = TestDatabase.pool(size: 1)
        let table = TestDatabase.uniqueName("looptx")
        _ = try await pool.query("CREATE TABLE \(table) (id int PRIMARY KEY)")
        try await onLoop(loop) {
            try await pool.withConnection { connection in
                try await connection.pipelinedTransaction { connection, opening in
                    _ = try await connection.pipeline(opening + [PostgresStatement("INSERT INTO \(table) VALUES (1)")])
                    return ((), [PostgresStatement("INSERT INTO \(table) VALUES (2)")])
                }
                await #expect(throws: PostgresError.self) {
                    try await connection.pipelinedTransaction { connection, opening in
                        _ = try await connection.pipeline(opening + [PostgresStatement("INSERT INTO \(table) VALUES (3)")])
                        return ((), [PostgresStatement("INSERT INTO \(table) VALUES (1)")])
                    }
                }
            }
        }
        #expect(try await pool.query("SELECT id FROM \(table) ORDER BY id").rows.compactMap { $0.int("id") } == [1, 2])
        _ = try await pool.query("DROP TABLE \(table)")
        await pool.close()
    }

    @Test func aPipelinePastItsDeadlineIsCancelledAndTheLoopKeepsRunning() async throws {
        let loop = TestSocketLoop.start()
        defer { loop.stop() }
        let pool = TestDatabase.pool(size: 1)
        let (error, onLoopAfter, next) = try await onLoop(loop) {
            try await pool.withConnection { connection in
                _ = try await connection.pipeline([PostgresStatement("SELECT 1")])
                // Other tasks on the loop go on while this one waits for the server.
                let ticker = Task(executorPreference: loop) {
                    for _ in 0..<10 { try await Task.sleep(for: .milliseconds(20)) }
                    return loop.isCurrent
                }
                let error = await #expect(throws: DeadlineExceeded.self) {
                    try await Deadline.$current.withValue(.after(.milliseconds(300))) {
                        _ = try await connection.pipeline([PostgresStatement("SELECT pg_sleep(60)")])
                    }
                }
                let next = try await connection.pipeline([PostgresStatement("SELECT 2 AS two")])[0].first?.int("two")
                return (error, try await ticker.value, next)
            }
        }
        #expect(error?.what == "the statement")
        #expect(onLoopAfter)
        #expect(next == 2)
        await pool.close()
    }

    @Test func aPipelineWaitingWhenTheLoopEndsFinishesOnTheConnectionsQueue() async throws {
        let loop = TestSocketLoop.start()
        let pool = TestDatabase.pool(size: 1)
        let waiting = Task(executorPreference: loop) {
            try await pool.withConnection { connection in
                _ = try await connection.pipeline([PostgresStatement("SELECT 1")])
                return try await connection.pipeline([PostgresStatement("SELECT pg_sleep(0.3), 7 AS seven")])[0].first?.int("seven")
            }
        }
        try await Task.sleep(for: .milliseconds(150))
        loop.stop()
        #expect(try await waiting.value == 7)
        await pool.close()
    }

    @Test func aSessionEndedByTheServerMidPipelineFailsAsALostConnection() async throws {
        let loop = TestSocketLoop.start()
        defer { loop.stop() }
        let applicationName = TestDatabase.uniqueName("loopkill")
        let pool = TestDatabase.pool(size: 1, applicationName: applicationName)
        let waiting = Task(executorPreference: loop) {
            try await pool.withConnection { connection in
                _ = try await connection.pipeline([PostgresStatement("SELECT 1")])
                _ = try await connection.pipeline([PostgresStatement("SELECT pg_sleep(30)")])
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await ServerSessions.terminate(applicationName: applicationName) == 1)
        let error = await #expect(throws: PostgresError.self) { try await waiting.value }
        #expect(error?.isConnectionFailure == true)
        // The pool makes the connection again for the next caller.
        #expect(try await onLoop(loop) { try await pool.query("SELECT 3 AS three").first?.int("three") } == 3)
        await pool.close()
    }
}
