import Dispatch
import Runtime
import Synchronization

/// One PostgreSQL session.
///
/// libpq blocks the calling thread, so every libpq call runs on this connection's own serial
/// queue, never on Swift's cooperative pool; callers just `await`. Calls from several tasks are
/// run one after another, but statements from different tasks then share one session
/// (and one transaction): use a `PostgresPool` to give each task its own.
///
/// The exception: a statement or pipeline sent by a task that runs on an I/O loop's thread (`SocketLoop`, a
/// broker connection's) runs there in libpq's non-blocking mode, the loop waiting for the session's socket with
/// its own (`LoopPipeline`), so its round trip hands nothing to another thread.
public final class PostgresConnection: Sendable {
    private let session: LibPQSession
    private let queue: DispatchQueue
    /// Who uses the session now: the queue, or a loop's thread.
    private let gate = SessionGate()
    private let openFlag = Atomic<Bool>(false)
    /// Set while the session is inside a transaction, so a pool can skip asking when it is not.
    private let transactionFlag = Atomic<Bool>(false)
    /// Set when the connection comes out of a pool's idle list: its next statement first checks the session
    /// (`LibPQSession.makeReady`) in the same trip to the connection's queue, instead of a trip of its own.
    private let checkBeforeNextStatement = Atomic<Bool>(false)
    private let reconnections = Atomic<Int>(0)
    private let largeMessageFlag = Atomic<Bool>(false)
    /// BEGIN and its check, held back by `transaction` until the body's first statement.
    private let deferredOpening = Mutex<TransactionCheck?>(nil)
    /// What `afterCommit` was given during the transaction under way.
    private let commitHooks = Mutex(CommitHooks())

    private struct CommitHooks {
        var inTransaction = false
        var work: [@Sendable () -> Void] = []
        var statements: [PostgresStatement] = []
    }

    /// Whether a message of the session carried megabytes (`LibPQSession.carriedLargeMessage`): libpq keeps
    /// buffers that size until the connection closes, so a pool closes it when it comes back.
    var carriedLargeMessage: Bool { largeMessageFlag.load(ordering: .acquiring) }

    /// Whether the session was inside a transaction after its last statement.
    var isInTransaction: Bool { transactionFlag.load(ordering: .acquiring) }

    /// The `PostgresPool.id` of the pool the connection belongs to (for a connection alone, an identity of its own).
    public var poolID: ObjectIdentifier { session.poolID }

    private init(session: LibPQSession) {
        self.session = session
        self.queue = DispatchQueue(label: "storage.postgres.connection")
    }

    /// Connects with a libpq URI (`postgres://user@host:port/db?...`) or a `key=value` conninfo string.
    /// Unless the URL says otherwise, connecting gives up after 10 seconds.
    public static func connect(url: String) async throws -> PostgresConnection {
        try await connect(parameters: ConnectionParameters(url: url))
    }

    /// `watchdog`: the one of the pool the connection belongs to; a connection alone gets its own.
    static func connect(parameters: ConnectionParameters,
                        watchdog: StatementWatchdog = StatementWatchdog()) async throws -> PostgresConnection {
        let connection = PostgresConnection(session: LibPQSession(parameters: parameters, watchdog: watchdog))
        try await connection.onQueue { try $0.open() }
        return connection
    }

    /// Parameterised query (PQexecParams, text format); values are never spliced into SQL text.
    /// `nil` parameters are SQL NULL. Parameters are `$1`, `$2`...; add a cast (`$1::bigint`) where
    /// PostgreSQL cannot infer a type.
    public func query(_ sql: String, _ parameters: [(any PostgresBindable)?] = []) async throws -> PostgresResult {
        let statement = PostgresStatement(sql, parameters)
        if let check = takeDeferredOpening() { return try await open(with: check, then: [statement])[0] }
        do {
            if let results = try await onLoop([statement]) { return results[0] }
        } catch let error as PostgresError where error.isStalePreparedStatement {
            // As on the queue (`LibPQSession.query`): the statement, forgotten, runs once more unprepared.
            if let results = try await onLoop([statement]) { return results[0] }
        }
        return try await onQueue { try $0.query(sql, statement.parameters) }
    }

    /// Several statements in one round trip (see `LibPQSession.pipeline`): their results in order, or the first
    /// failing statement's error, the statements after it not run. Inside a transaction, a failure leaves it to be
    /// rolled back as usual; outside one, the statements sent together are one implicit transaction: all or none.
    public func pipeline(_ statements: [PostgresStatement]) async throws -> [PostgresResult] {
        if let check = takeDeferredOpening() { return try await open(with: check, then: statements) }
        return try await send(statements)
    }

    /// The statements in one round trip: on the caller's I/O loop when it can (`onLoop`), on the connection's queue
    /// otherwise.
    private func send(_ statements: [PostgresStatement]) async throws -> [PostgresResult] {
        if let results = try await onLoop(statements) { return results }
        return try await onQueue { try $0.pipeline(statements) }
    }

    /// The statements in one round trip on the caller's I/O loop (`LoopPipeline`); nil, with nothing sent, when the
    /// caller runs on none, or the session is in use or must be reconnected first (which blocks).
    private func onLoop(_ statements: [PostgresStatement]) async throws -> [PostgresResult]? {
        guard let loop = SocketLoop.current, gate.tryEnter() else { return nil }
        if checkBeforeNextStatement.exchange(false, ordering: .acquiringAndReleasing), !session.isReadyAsItIs() {
            checkBeforeNextStatement.store(true, ordering: .releasing)
            gate.leave()
            return nil
        }
        let deadline = Deadline.current
        let started = ContinuousClock.now
        return try await withCheckedThrowingContinuation { continuation in
            LoopPipeline(session: session, loop: loop, queue: queue, deadline: deadline) { [self] result in
                StorageMetrics.statementDuration.observe(ContinuousClock.now - started)
                StorageMetrics.roundTripsOnLoop.increment()
                noteSessionState()
                gate.leave()
                continuation.resume(with: result)
            }.start(statements)
        }
    }

    /// The same, with `PostgresBinary` parameters sent as bytes instead of hex text (for large bytea values).
    public func query(_ sql: String, binary parameters: [(any PostgresBindable)?]) async throws -> PostgresResult {
        try await sendDeferredOpening()
        let values = parameters.map(PostgresParameter.init)
        guard case .rows(let result) = try await onQueue({ try $0.query(sql, values, binaryResults: false) }) else {
            preconditionFailure("a text query answers rows")
        }
        return result
    }

    /// Every column of every row in PostgreSQL's binary format (nil for SQL NULL): bytea values as their bytes,
    /// without the hex text twice their size; `PostgresBinary.integer` reads integers. Parameters as in
    /// `query(_:binary:)`.
    public func binaryRows(_ sql: String, _ parameters: [(any PostgresBindable)?] = []) async throws -> [[[UInt8]?]] {
        try await sendDeferredOpening()
        let values = parameters.map(PostgresParameter.init)
        guard case .binaryRows(let rows) = try await onQueue({ try $0.query(sql, values, binaryResults: true) })
        else { preconditionFailure("a binary query answers binary rows") }
        return rows
    }

    /// Several statements without parameters (simple protocol), for migrations only.
    /// Without an explicit transaction they run as one implicit transaction.
    public func execute(script: String) async throws {
        try await sendDeferredOpening()
        _ = try await onQueue { try $0.executeScript(script) }
    }

    /// Runs `work` once the transaction under way on this connection (`transaction`, `pipelinedTransaction`) has
    /// committed, and never if it rolls back; outside one, at once. For what must not happen before the change is
    /// visible to others, such as waking the outbox relay.
    public func afterCommit(_ work: @escaping @Sendable () -> Void) {
        let now = commitHooks.withLock { hooks in
            guard hooks.inTransaction else { return true }
            hooks.work.append(work)
            return false
        }
        if now { work() }
    }

    /// Sends `statement` in the round trip of the COMMIT of the transaction under way (`transaction`,
    /// `pipelinedTransaction`), just before it; outside one, at once. For a write that nothing later in the
    /// transaction reads, such as an outbox row: it then costs no round trip of its own. Its failure is the
    /// commit's: the transaction rolls back.
    public func sendWithCommit(_ statement: PostgresStatement) async throws {
        let now = commitHooks.withLock { hooks in
            guard hooks.inTransaction else { return true }
            hooks.statements.append(statement)
            return false
        }
        if now { _ = try await pipeline([statement]) }
    }

    /// The statements `sendWithCommit` holds for the transaction's COMMIT, taken (so they go once).
    func takeCommitStatements() -> [PostgresStatement] {
        commitHooks.withLock { hooks in
            defer { hooks.statements = [] }
            return hooks.statements
        }
    }

    func beginCommitHooks() {
        commitHooks.withLock { $0 = CommitHooks(inTransaction: true) }
    }

    /// Ends the transaction's hooks, running them when it committed.
    func endCommitHooks(committed: Bool) {
        let work = commitHooks.withLock { hooks in
            defer { hooks = CommitHooks() }
            return committed ? hooks.work : []
        }
        work.forEach { $0() }
    }

    /// `transaction` begins with a check and no preamble: BEGIN and the check wait for the first statement.
    func deferOpening(_ check: TransactionCheck) {
        deferredOpening.withLock { $0 = check }
    }

    /// Whether BEGIN and its check still wait for a statement to go with.
    var hasDeferredOpening: Bool { deferredOpening.withLock { $0 != nil } }

    /// The opening still waiting, taken (so it goes once): nil when it was sent or there was none.
    func takeDeferredOpening() -> TransactionCheck? {
        deferredOpening.withLock { opening in
            defer { opening = nil }
            return opening
        }
    }

    /// BEGIN and `check`, then `statements`, in one round trip; the check's verdict comes before their results,
    /// and before their errors too: a statement that failed may have been decided with what the check refuses.
    /// A prepared statement the server finds stale (its tables changed shape) aborted the new transaction: it is
    /// begun again, with the statement now sent unprepared.
    private func open(with check: TransactionCheck, then statements: [PostgresStatement]) async throws -> [PostgresResult] {
        let all = [PostgresStatement("BEGIN"), check.statement] + statements
        let results: [PostgresResult]
        do {
            do {
                results = try await send(all)
            } catch let error as PostgresError where error.isStalePreparedStatement {
                await rollBack()
                results = try await send(all)
            }
        } catch let error as PostgresError where !error.isConnectionFailure {
            await rollBack()
            let verdict = try await onQueue { try $0.query(check.statement.sql, check.statement.parameters) }
            try check.inspect(verdict)
            throw error
        }
        try check.inspect(results[1])
        return Array(results[2...])
    }

    /// Sends a waiting opening by itself, before a statement that cannot go in a pipeline.
    private func sendDeferredOpening() async throws {
        if let check = takeDeferredOpening() { _ = try await open(with: check, then: []) }
    }

    /// False once the server connection is lost or closed; a pool reconnects such a connection.
    public var isOpen: Bool { openFlag.load(ordering: .acquiring) }

    public func close() async {
        _ = try? await onQueue(checked: false) { $0.close() }
    }

    /// The next statement first makes the session usable (see `LibPQSession.makeReady`): a connection the server
    /// dropped while it sat idle is reconnected then, and a failure to reconnect is that statement's error.
    func checkBeforeNextUse() {
        checkBeforeNextStatement.store(true, ordering: .releasing)
    }

    /// How many times the session had to be reconnected so far.
    var reconnectionCount: Int { reconnections.load(ordering: .acquiring) }

    /// Returns true when a transaction was left open and has been rolled back.
    func rollbackOpenTransaction() async -> Bool {
        guard transactionFlag.load(ordering: .acquiring) else { return false }
        return (try? await onQueue(checked: false) { $0.rollbackOpenTransaction() }) ?? false
    }

    /// Runs `work` on the connection's queue. `checked` work (statements) is bounded by the calling task's
    /// `Deadline.current`: refused once it has passed, cancelled when it passes; housekeeping (close, rollback)
    /// always runs.
    private func onQueue<T: Sendable>(checked: Bool = true,
                                      _ work: @escaping @Sendable (LibPQSession) throws -> T) async throws -> T {
        let deadline = checked ? Deadline.current : nil
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                gate.enter()
                let result = Result {
                    if let deadline, deadline.hasPassed { throw DeadlineExceeded("the statement") }
                    if checked, checkBeforeNextStatement.exchange(false, ordering: .acquiringAndReleasing),
                       try session.makeReady() {
                        reconnections.add(1, ordering: .releasing)
                    }
                    let started = ContinuousClock.now
                    defer {
                        if checked {
                            StorageMetrics.statementDuration.observe(ContinuousClock.now - started)
                            StorageMetrics.roundTripsOnQueue.increment()
                        }
                    }
                    return try session.run(until: deadline) { try work(session) }
                }
                noteSessionState()
                gate.leave()
                continuation.resume(with: result)
            }
        }
    }

    /// Called by the thread that used the session last, before it lets go of it.
    private func noteSessionState() {
        openFlag.store(session.isConnected, ordering: .releasing)
        transactionFlag.store(session.isInTransaction, ordering: .releasing)
        largeMessageFlag.store(session.carriedLargeMessage, ordering: .releasing)
    }
}
