import Storage
import Synchronization
import Testing

/// `afterCommit` work runs once its transaction has committed, never when it rolls back, and at once outside one.
@Suite(.enabled(if: TestDatabase.isConfigured))
struct CommitHooksTests {
    final class Runs: Sendable {
        private let names = Mutex<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    struct Refused: Error {}

    @Test func workRunsAfterACommitOnly() async throws {
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        defer { Task { await connection.close() } }
        let runs = Runs()
        try await connection.transaction { connection in
            _ = try await connection.query("SELECT 1")
            connection.afterCommit { runs.add("committed") }
            #expect(runs.all.isEmpty)
        }
        #expect(runs.all == ["committed"])
        await #expect(throws: Refused.self) {
            try await connection.transaction { connection in
                _ = try await connection.query("SELECT 1")
                connection.afterCommit { runs.add("rolled back") }
                throw Refused()
            }
        }
        _ = try await connection.pipelinedTransaction { connection, opening in
            _ = try await connection.pipeline(opening + [PostgresStatement("SELECT 1")])
            connection.afterCommit { runs.add("pipelined") }
            return (0, [])
        }
        connection.afterCommit { runs.add("outside") }
        #expect(runs.all == ["committed", "pipelined", "outside"])
    }
}
