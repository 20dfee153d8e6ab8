import ParseWire
import Storage
import Testing

/// Makes requests queue for a batcher: the Cat table is locked in `mode` while the `first` request waits in its
/// statement, so that the requests of `then` queue behind its batch.
struct QueuedBehindALock {
    var pool: PostgresPool
    /// A lock the first request's statement waits for: `EXCLUSIVE` stops writes, `ACCESS EXCLUSIVE` reads too.
    var mode: String
    /// How many requests wait for the batch under way (the batcher's `waitingCount`).
    var waiting: @Sendable () -> Int

    /// Runs `first`, waits until it is blocked, runs `then` until `queued` of them wait, runs `whileQueued`, lets the
    /// table go, and gives every answer, the first one's first.
    func run(queued: Int, first: @escaping @Sendable () async throws -> Result<String, ParseError>,
             then: [@Sendable () async throws -> Result<String, ParseError>],
             whileQueued: () async throws -> Void = {}) async throws -> [Result<String, ParseError>] {
        let locked = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()
        let mode = self.mode
        let holder = Task { [pool] in
            try await pool.withConnection { connection in
                try await connection.transaction { connection in
                    _ = try await connection.query("LOCK TABLE classes.\"Cat\" IN \(mode) MODE")
                    locked.continuation.yield()
                    for await _ in release.stream { break }
                }
            }
        }
        for await _ in locked.stream { break }
        let head = Task { try await first() }
        // pg_locks is the whole cluster's: tests beside this one, in their own databases, may wait for locks too.
        try await Self.waitUntil("the first request waits for the lock") {
            try await pool.query("""
                SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND relation = 'classes."Cat"'::regclass
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """).first?.int("n") == 1
        }
        let rest = then.map { request in Task { try await request() } }
        try await Self.waitUntil("\(queued) requests wait for the batch") { waiting() == queued }
        try await whileQueued()
        release.continuation.yield()
        try await holder.value
        var answers = [try await head.value]
        for task in rest { answers.append(try await task.value) }
        return answers
    }

    static func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        // Generous: a loaded machine running the suites side by side can take seconds to get there.
        for _ in 0..<3_000 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("timed out waiting until \(what)")
    }
}
