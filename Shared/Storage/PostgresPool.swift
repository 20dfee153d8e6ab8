import Runtime

/// Lends PostgreSQL connections to one caller at a time.
///
/// Connections are opened on demand, up to `poolSize`; callers beyond that wait in arrival order.
/// A connection the server dropped is reconnected before it is lent again, so a restart of
/// PostgreSQL costs the callers that were using it at that moment, not the ones after.
public actor PostgresPool {
    private enum Lease: Sendable {
        case connection(PostgresConnection)
        /// Permission to open a new connection, within `poolSize`.
        case slot
    }

    private let configuration: PostgresConfiguration
    private let logger: Logger
    private var idle: [PostgresConnection] = []
    /// Connections open or being opened, idle or lent.
    private var openCount = 0
    private struct Waiter {
        let deadline: Deadline?
        let continuation: CheckedContinuation<Lease, any Error>
    }

    private var waiters: [Waiter] = []
    /// When the task that expires late waiters wakes next; nil when none sleeps.
    private var sweepAt: Deadline?
    private let sweeps = OwnedTasks("postgres pool sweeps")
    private var isClosed = false
    /// Cancels its connections' statements that outlive their deadline.
    private let watchdog = StatementWatchdog()

    /// Tells this pool from any other: what its connections give as their `poolID`.
    public nonisolated var id: ObjectIdentifier { ObjectIdentifier(watchdog) }

    public init(configuration: PostgresConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Lends one connection for the closure; reconnects a broken one before lending it; waits (FIFO)
    /// while all are busy, at most until the task's `Deadline.current` (then throws `DeadlineExceeded`). Throws `PostgresError` (`isConnectionFailure`) if the server cannot be reached.
    /// A transaction the closure leaves open is rolled back when the connection comes back.
    public func withConnection<T: Sendable>(
        _ body: @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection = try await acquire()
        let reconnections = connection.reconnectionCount
        do {
            let value = try await body(connection)
            await release(connection, reconnectionsBefore: reconnections)
            return value
        } catch {
            await release(connection, reconnectionsBefore: reconnections)
            throw error
        }
    }

    /// One statement on a connection opened for it and closed after, outside the pool: for a caller that holds one
    /// of the pool's connections and must not wait for another, which may never come (every connection can be
    /// held by such callers at once).
    public nonisolated func queryOnOwnConnection(_ sql: String, _ parameters: [(any PostgresBindable)?] = []) async throws
        -> PostgresResult {
        let connection = try await PostgresConnection.connect(
            parameters: ConnectionParameters(url: configuration.url, settings: configuration.settings))
        do {
            let result = try await connection.query(sql, parameters)
            await connection.close()
            return result
        } catch {
            await connection.close()
            throw error
        }
    }

    /// One statement on any free connection, in its own implicit transaction.
    public func query(_ sql: String, _ parameters: [(any PostgresBindable)?] = []) async throws -> PostgresResult {
        try await withConnection { try await $0.query(sql, parameters) }
    }

    /// `PostgresConnection.query(_:binary:)` on any free connection.
    public func query(_ sql: String, binary parameters: [(any PostgresBindable)?]) async throws -> PostgresResult {
        try await withConnection { try await $0.query(sql, binary: parameters) }
    }

    /// `PostgresConnection.binaryRows` on any free connection.
    public func binaryRows(_ sql: String, _ parameters: [(any PostgresBindable)?] = []) async throws -> [[[UInt8]?]] {
        try await withConnection { try await $0.binaryRows(sql, parameters) }
    }

    /// Closes idle connections at once and lent ones when they come back; waiting and later callers get an error.
    public func close() async {
        isClosed = true
        let waiting = waiters
        waiters.removeAll()
        for waiter in waiting { waiter.continuation.resume(throwing: PostgresError.poolClosed) }
        await sweeps.stop()
        let closing = idle
        idle.removeAll()
        openCount -= closing.count
        for connection in closing { await connection.close() }
    }

    private func acquire() async throws -> PostgresConnection {
        let started = ContinuousClock.now
        defer { StorageMetrics.poolWait.observe(ContinuousClock.now - started) }
        guard !isClosed else { throw PostgresError.poolClosed }
        let lease: Lease
        if let connection = idle.popLast() {
            lease = .connection(connection)
        } else if openCount < configuration.poolSize {
            openCount += 1
            lease = .slot
        } else {
            let deadline = Deadline.current
            if let deadline, deadline.hasPassed { throw Self.gaveUpWaiting }
            lease = try await withCheckedThrowingContinuation { continuation in
                waiters.append(Waiter(deadline: deadline, continuation: continuation))
                if let deadline { sweep(at: deadline) }
            }
        }
        switch lease {
        case .connection(let connection):
            // Checked on its first statement, in the same trip to its queue: a connection the server dropped
            // while idle is reconnected then, or that statement fails and the next borrower tries again.
            connection.checkBeforeNextUse()
            return connection
        case .slot:
            return try await openConnection()
        }
    }

    /// A caller whose deadline passes while it waits stops waiting: its client has stopped waiting too, and the
    /// callers behind it should not wait for work nobody wants any more. One task sleeps until the earliest
    /// deadline of the waiters rather than one per waiter: under load most callers wait a moment for a connection,
    /// and a sleeping task per caller was a timer armed, and a wake-up much later, for each of them.
    private func sweep(at deadline: Deadline) {
        if let planned = sweepAt, planned <= deadline { return }
        sweepAt = deadline
        sweeps.spawnDetached { await self.sweepLoop(from: deadline) }
    }

    private static let gaveUpWaiting = DeadlineExceeded("waiting for a database connection")

    private func sweepLoop(from first: Deadline) async {
        var wake = first
        while true {
            try? await Task.sleep(for: wake.remaining)
            if Task.isCancelled { return }
            // A sweep planned earlier since took over, and plans its own next wake.
            guard sweepAt == wake else { return }
            var late: [Waiter] = []
            waiters.removeAll { waiter in
                guard waiter.deadline?.hasPassed == true else { return false }
                late.append(waiter)
                return true
            }
            for waiter in late {
                waiter.continuation.resume(throwing: Self.gaveUpWaiting)
            }
            guard let next = waiters.compactMap(\.deadline).min() else {
                sweepAt = nil
                return
            }
            sweepAt = next
            wake = next
        }
    }

    private func openConnection() async throws -> PostgresConnection {
        do {
            return try await PostgresConnection.connect(
                parameters: ConnectionParameters(url: configuration.url, settings: configuration.settings), watchdog: watchdog)
        } catch {
            logger.error("cannot connect to PostgreSQL", ["error": "\(error)"])
            openCount -= 1
            // A waiter queued behind this attempt may try in its turn instead of waiting for a release.
            if !waiters.isEmpty {
                openCount += 1
                waiters.removeFirst().continuation.resume(returning: .slot)
            }
            throw error
        }
    }

    private func release(_ connection: PostgresConnection, reconnectionsBefore: Int) async {
        if connection.reconnectionCount != reconnectionsBefore { logger.info("reconnected to PostgreSQL") }
        if await connection.rollbackOpenTransaction() {
            logger.warning("a connection came back inside a transaction; rolled it back")
        }
        await handBack(connection)
    }

    private func handBack(_ connection: PostgresConnection) async {
        if isClosed {
            openCount -= 1
            await connection.close()
        } else if connection.carriedLargeMessage {
            // Its buffers stay as large as its largest message: a new connection takes its place when needed.
            openCount -= 1
            await connection.close()
            if !waiters.isEmpty {
                openCount += 1
                waiters.removeFirst().continuation.resume(returning: .slot)
            }
        } else if waiters.isEmpty {
            idle.append(connection)
        } else {
            waiters.removeFirst().continuation.resume(returning: .connection(connection))
        }
    }
}

extension PostgresError {
    static let poolClosed = PostgresError.connectionFailure("the connection pool is closed")
}
