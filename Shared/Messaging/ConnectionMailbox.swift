import Glibc
import Runtime
import Synchronization

/// What other threads and the connection thread share: the queue of operations, whether the connection is up
/// (work is refused at once while it is not), the consumers' on/off switch and the stop request. Only the first
/// operation since the connection thread last took its work writes to the wake-up pipe (one syscall instead of
/// one per reply, ack or call under load); the connection thread itself never needs to, since it takes its work
/// before it waits again. The jobs of the tasks that run on the connection's thread (`ConnectionExecutor`) are
/// queued here too, so that one wait covers both.
final class ConnectionMailbox: Sendable {
    enum Enqueued { case queued, queuedNeedsWake, refused }

    private struct Shared {
        var operations: [ConnectionOperation] = []
        var jobs: [UnownedJob] = []
        /// A wake-up is already on its way to the connection thread, or the thread itself queued work and looks
        /// at it before it waits: no need to write to the pipe again.
        var wakePending = false
        var connected = false
        var consuming = true
        var stopping = false
        var finished = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []

        mutating func append(_ operation: ConnectionOperation) -> Enqueued {
            operations.append(operation)
            return wakeUp()
        }

        mutating func wakeUp() -> Enqueued {
            if wakePending { return .queued }
            wakePending = true
            return .queuedNeedsWake
        }
    }

    private let shared = Mutex(Shared())
    private let wake = WakePipe()
    /// The connection thread's `pthread_t`, once its loop runs.
    private let loopThread = Atomic<UInt>(0)
    /// The other sockets the connection thread's tasks wait for; its waits cover them too.
    let sockets = SocketLoop()

    /// Whether the caller runs on the connection thread.
    var onLoopThread: Bool {
        let loop = loopThread.load(ordering: .relaxed)
        return loop != 0 && pthread_equal(pthread_self(), pthread_t(loop)) != 0
    }

    var isConnected: Bool { shared.withLock { $0.connected } }
    var isStopping: Bool { shared.withLock { $0.stopping } }
    var isConsuming: Bool { shared.withLock { $0.consuming } }

    func enqueue(_ operation: ConnectionOperation) {
        deliver(shared.withLock { $0.append(operation) }) {}
    }

    /// Queues a job for the connection thread; false once that thread has ended (the caller runs it elsewhere).
    func enqueue(job: UnownedJob) -> Bool {
        let outcome = shared.withLock { shared -> Enqueued in
            guard !shared.finished else { return .refused }
            shared.jobs.append(job)
            return shared.wakeUp()
        }
        if outcome == .refused { return false }
        deliver(outcome) {}
        return true
    }

    /// Queues `first` and then `second` together: one wake-up at most, and nothing queued between them.
    func enqueue(_ first: ConnectionOperation, then second: ConnectionOperation) {
        deliver(shared.withLock { shared in
            let outcome = shared.append(first)
            _ = shared.append(second)
            return outcome
        }) {}
    }

    /// Queues `operation` while the connection is up and not stopping; otherwise runs `refused`.
    func enqueueWhileConnected(_ operation: ConnectionOperation, refused: () -> Void) {
        let outcome = shared.withLock { shared -> Enqueued in
            guard shared.connected, !shared.stopping else { return .refused }
            return shared.append(operation)
        }
        deliver(outcome, refused: refused)
    }

    /// Turns the consumers off for good (across reconnects); queues `operation` to cancel them now if connected.
    func stopConsuming(_ operation: ConnectionOperation, refused: () -> Void) {
        let outcome = shared.withLock { shared -> Enqueued in
            shared.consuming = false
            guard shared.connected else { return .refused }
            return shared.append(operation)
        }
        deliver(outcome, refused: refused)
    }

    /// Asks the connection thread to stop; false when it had already finished.
    func requestStop(_ waiter: CheckedContinuation<Void, Never>) -> Bool {
        let waiting = shared.withLock { shared -> Bool in
            shared.stopping = true
            if shared.finished { return false }
            shared.stopWaiters.append(waiter)
            return true
        }
        if waiting { wake.signal() }
        return waiting
    }

    private func deliver(_ outcome: Enqueued, refused: () -> Void) {
        switch outcome {
        // The connection thread looks at its work before every wait (`take`, or `sleep`, which clears the flag),
        // so what it queues itself needs no byte in the pipe.
        case .queuedNeedsWake: if !onLoopThread { wake.signal() }
        case .queued: break
        case .refused: refused()
        }
    }

    // MARK: The connection thread's side

    /// Called first on the connection thread: what it queues itself needs no wake-up.
    func enteredLoop() {
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        sockets.enter()
    }

    func takeJobs() -> [UnownedJob] {
        shared.withLock { shared in
            defer { shared.jobs.removeAll(keepingCapacity: true) }
            return shared.jobs
        }
    }

    var hasOperations: Bool { shared.withLock { !$0.operations.isEmpty } }

    func take() -> [ConnectionOperation] {
        shared.withLock { shared in
            defer {
                shared.operations.removeAll(keepingCapacity: true)
                shared.wakePending = false
            }
            return shared.operations
        }
    }

    func connected() {
        shared.withLock { $0.connected = true }
    }

    /// Marks the connection down and returns what was queued for it.
    func disconnected() -> [ConnectionOperation] {
        shared.withLock { shared in
            shared.connected = false
            defer { shared.operations = []; shared.wakePending = false }
            return shared.operations
        }
    }

    /// Waits for the socket to be readable, for queued work or for a socket its tasks wait for (`sockets`, whose
    /// waiters it calls back), at most `milliseconds` (not at all while jobs are queued); true when the socket is.
    func wait(socket: Int32, milliseconds: Int32) -> Bool {
        waitOnce(for: socket, milliseconds: milliseconds, jobsQueued: shared.withLock { !$0.jobs.isEmpty })
    }

    /// Waits up to `milliseconds` for anything queued (work, jobs or a stop) or a socket its tasks wait for; not at
    /// all while jobs are queued.
    func sleep(milliseconds: Int32) {
        let jobsQueued = shared.withLock { shared in
            // This wait takes no operations, which is what clears the flag otherwise: cleared here, so that work
            // queued during it still wakes it.
            shared.wakePending = false
            return !shared.jobs.isEmpty
        }
        _ = waitOnce(for: nil, milliseconds: milliseconds, jobsQueued: jobsQueued)
    }

    /// The connection thread's one way to wait: on the wake-up pipe, on `socket` when there is one, and on the
    /// sockets its tasks wait for. True when `socket` is readable.
    private func waitOnce(for socket: Int32?, milliseconds: Int32, jobsQueued: Bool) -> Bool {
        var fds = [pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
        if let socket { fds.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
        let own = fds.count
        sockets.appendDescriptors(to: &fds)
        guard poll(&fds, nfds_t(fds.count), jobsQueued ? 0 : milliseconds) > 0 else { return false }
        if fds[0].revents != 0 { wake.drain() }
        sockets.dispatch(fds[own...])
        return socket != nil && fds[1].revents != 0
    }

    /// Whether a wake-up is waiting in the pipe.
    var isWakeSignalled: Bool { wake.isSignalled }

    /// The thread has ended: resumes everyone waiting in `stop`, tells the tasks waiting for sockets, and returns the
    /// jobs it did not run (later ones are refused).
    func finished() -> [UnownedJob] {
        sockets.end()
        let (waiters, jobs) = shared.withLock { shared in
            shared.finished = true
            defer { shared.stopWaiters = []; shared.jobs = [] }
            return (shared.stopWaiters, shared.jobs)
        }
        waiters.forEach { $0.resume() }
        return jobs
    }
}
