import Synchronization

/// Wakes the outbox relay of one database when a transaction that wrote to its outbox has committed, so its events
/// leave at once instead of at the relay's next poll; the poll stays, for rows another process wrote and left behind.
/// One per pool (`OutboxWakes`): a process serving several apps has a relay per app database, and a commit wakes
/// only its own.
/// A signal with nobody waiting is kept for the next wait, so one that comes while the relay is busy is not lost.
/// A signal says whether there may be rows to read (`rowsGeneration` moves) or only confirmed rows to mark
/// (`OutboxLane`), so a relay reads the table only when something may be waiting there.
final class OutboxWake: Sendable {
    private struct State {
        var pending = false
        var rowsGeneration: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Moves with every signal of rows: a relay that saw it move since its last read reads again.
    var rowsGeneration: UInt64 { state.withLock { $0.rowsGeneration } }

    func signal(rows: Bool = true) {
        let waiters = state.withLock { state in
            if rows { state.rowsGeneration &+= 1 }
            guard !state.waiters.isEmpty else {
                state.pending = true
                return [CheckedContinuation<Bool, Never>]()
            }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        waiters.forEach { $0.resume(returning: true) }
    }

    /// Returns at the next signal (at once if one came since the last wait), or after `timeout`; true for a signal.
    @discardableResult
    func wait(atMost timeout: Duration) async -> Bool {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        // The timer is a child task: it ends the wait after `timeout`, or at once when the waiting task is cancelled.
        return await withTaskGroup(of: Void.self) { timer in
            timer.addTask { [self] in
                try? await Task.sleep(for: timeout)
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
            }
            let signalled = await withCheckedContinuation { continuation in
                let pending = state.withLock { state in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    state.waiters[id] = continuation
                    return false
                }
                if pending { continuation.resume(returning: true) }
            }
            timer.cancelAll()
            return signalled
        }
    }
}

/// The wakes of this process by the pool of the database whose outbox they serve, as `OutboxLanes`.
final class OutboxWakes: Sendable {
    static let shared = OutboxWakes()

    private let wakes = Mutex<[ObjectIdentifier: OutboxWake]>([:])

    func wake(for pool: ObjectIdentifier) -> OutboxWake {
        wakes.withLock { wakes in
            if let wake = wakes[pool] { return wake }
            let wake = OutboxWake()
            wakes[pool] = wake
            return wake
        }
    }

    func remove(for pool: ObjectIdentifier) { wakes.withLock { $0[pool] = nil } }
}
