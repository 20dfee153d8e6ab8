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
        let lock = try await Self.lock("Cat", in: mode, pool: pool)
        let head = Task { try await first() }
        try await Self.waitUntil("the first request waits for the lock") { try await Self.waits(for: "Cat", pool: pool) == 1 }
        let rest = then.map { request in Task { try await request() } }
        try await Self.waitUntil("\(queued) requests wait for the batch") { waiting() == queued }
        try await whileQueued()
        try await lock.release()
        var answers = [try await head.value]
        for task in rest { answers.append(try await task.value) }
        return answers
    }

    /// A table lock held by a transaction of its own until `release()`.
    struct Lock {
        fileprivate var holder: Task<Void, any Error>
        fileprivate var letGo: AsyncStream<Void>.Continuation

        func release() async throws {
            letGo.yield()
            try await holder.value
        }
    }

    /// Locks `classes.<table>` in `mode` and returns once the lock is held.
    static func lock(_ table: String, in mode: String, pool: PostgresPool) async throws -> Lock {
        let locked = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await pool.withConnection { connection in
                try await connection.transaction { connection in
                    _ = try await connection.query("LOCK TABLE classes.\"\(table)\" IN \(mode) MODE")
                    locked.continuation.yield()
                    for await _ in release.stream { break }
                }
            }
        }
        for await _ in locked.stream { break }
        return Lock(holder: holder, letGo: release.continuation)
    }

    /// How many statements of this database wait for a lock on `classes.<table>`. pg_locks is the whole cluster's:
    /// tests beside this one, in their own databases, may wait for locks too.
    static func waits(for table: String, pool: PostgresPool) async throws -> Int? {
        try await pool.query("""
            SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND relation = 'classes."\(table)"'::regclass
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """).first?.int("n")
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
