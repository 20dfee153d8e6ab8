import Synchronization

/// The tasks one component starts, each remembered until it returns, so whoever owns the component can wait for
/// them and stop them: the one way code here starts a task that outlives the function starting it (a command's
/// handling, a reload in the background, a job that outlives its request). `deploy/lint-tasks` checks that no
/// other file starts one.
///
/// Ends in `stop`: new starts are refused from then on, the running ones get `grace` to finish and are then
/// cancelled and awaited, so nothing the component started is still running when its connections close.
/// Tasks (not a task group) because the work is started from C threads and callbacks, outside any task.
public final class OwnedTasks: Sendable {
    private struct State {
        var running: [UInt64: Task<Void, Never>] = [:]
        /// Started, their `Task` not yet recorded: it is made outside the lock (see `start`).
        var starting: Set<UInt64> = []
        /// Returned before their `Task` was recorded.
        var returnedEarly: Set<UInt64> = []
        var next: UInt64 = 0
        var stopping = false
        /// `stop` has cancelled the running ones: a task recorded after that is cancelled as it is recorded.
        var cancelling = false
        var idleWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0

        var isIdle: Bool { running.isEmpty && starting.isEmpty }

        /// The waiters to resume when none is running any more.
        mutating func idleWaitersToResume() -> [CheckedContinuation<Void, Never>] {
            guard isIdle else { return [] }
            defer { idleWaiters.removeAll() }
            return Array(idleWaiters.values)
        }
    }

    public let name: String
    private let state = Mutex(State())

    public init(_ name: String) {
        self.name = name
    }

    /// Starts `body` in a task that inherits the caller's task-local values (its trace, its deadline); false,
    /// without starting it, once `stop` has begun. `executor`: where the task prefers to run (the shared pool when
    /// nil).
    @discardableResult
    public func spawn(on executor: (any TaskExecutor)? = nil, _ body: @escaping @Sendable () async -> Void) -> Bool {
        start(detached: false, executor: executor, body)
    }

    /// Starts `body` in a task that inherits nothing from the caller but its app (`AppContext`): work that serves
    /// more than the request that started it must not end at that request's deadline, and it is still that app's.
    /// `executor`: where it prefers to run, as in `spawn`.
    @discardableResult
    public func spawnDetached(on executor: (any TaskExecutor)? = nil, _ body: @escaping @Sendable () async -> Void) -> Bool {
        let app = AppContext.current
        return start(detached: true, executor: executor) { await AppContext.$current.withValue(app) { await body() } }
    }

    /// How many are running.
    public var count: Int { state.withLock { $0.running.count + $0.starting.count } }

    /// Waits until none is running, or `grace` has passed; true when none is running. New ones may still start.
    @discardableResult
    public func waitUntilIdle(upTo grace: Duration) async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.idle() }
            group.addTask { try? await Task.sleep(for: grace) }
            await group.next()
            group.cancelAll()
        }
        return count == 0
    }

    /// Refuses new tasks, gives the running ones `grace` to return, then cancels the rest and waits for them, at
    /// most `patience` (a task that ignores its cancellation must not hold a shutdown forever). Returns how many
    /// are still running then.
    @discardableResult
    public func stop(grace: Duration = .zero, patience: Duration = .seconds(10)) async -> Int {
        state.withLock { $0.stopping = true }
        // Waited for in a task of its own: a caller that is itself being cancelled (a job that stops) still waits.
        await Task.detached { [self] in
            if grace > .zero { await waitUntilIdle(upTo: grace) }
            let running = state.withLock { state in
                state.cancelling = true
                return Array(state.running.values)
            }
            for task in running { task.cancel() }
            await waitUntilIdle(upTo: patience)
        }.value
        return count
    }

    private func start(detached: Bool, executor: (any TaskExecutor)?,
                       _ body: @escaping @Sendable () async -> Void) -> Bool {
        // The task is made outside the lock: making one can wake a thread of the pool (a system call), and every
        // other thread starting or ending a task would wait on the lock meanwhile, as a server's request
        // threads did under load.
        let reserved: UInt64? = state.withLock { state in
            guard !state.stopping else { return nil }
            state.next &+= 1
            state.starting.insert(state.next)
            return state.next
        }
        guard let id = reserved else { return false }
        let work: @Sendable () async -> Void = { [self] in
            await body()
            finished(id)
        }
        let task = detached ? Task.detached(executorPreference: executor, operation: work)
            : Task(executorPreference: executor, operation: work)
        let (cancel, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            state.starting.remove(id)
            guard state.returnedEarly.remove(id) == nil else { return (false, state.idleWaitersToResume()) }
            state.running[id] = task
            return (state.cancelling, [])
        }
        if cancel { task.cancel() }
        waiters.forEach { $0.resume() }
        return true
    }

    private func finished(_ id: UInt64) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if state.running.removeValue(forKey: id) == nil { state.returnedEarly.insert(id) }
            return state.idleWaitersToResume()
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns when none is running, or when the calling task is cancelled.
    private func idle() async {
        let id = state.withLock { state in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    guard !state.isIdle, !Task.isCancelled else { return true }
                    state.idleWaiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.idleWaiters.removeValue(forKey: id) }?.resume()
        }
    }
}
