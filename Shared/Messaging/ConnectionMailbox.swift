import Glibc
import Synchronization

/// What other threads and the connection thread share: the queue of operations, whether the connection is up
/// (work is refused at once while it is not), the consumers' on/off switch and the stop request. Only the first
/// operation since the connection thread last took its work writes to the wake-up pipe (one syscall instead of
/// one per reply, ack or call under load).
final class ConnectionMailbox: Sendable {
    enum Enqueued { case queued, queuedNeedsWake, refused }

    private struct Shared {
        var operations: [ConnectionOperation] = []
        /// A wake-up is already on its way to the connection thread: no need to write to the pipe again.
        var wakePending = false
        var connected = false
        var consuming = true
        var stopping = false
        var finished = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []

        mutating func append(_ operation: ConnectionOperation) -> Enqueued {
            operations.append(operation)
            if wakePending { return .queued }
            wakePending = true
            return .queuedNeedsWake
        }
    }

    private let shared = Mutex(Shared())
    private let wake = WakePipe()

    var isConnected: Bool { shared.withLock { $0.connected } }
    var isStopping: Bool { shared.withLock { $0.stopping } }
    var isConsuming: Bool { shared.withLock { $0.consuming } }

    func enqueue(_ operation: ConnectionOperation) {
        deliver(shared.withLock { $0.append(operation) }) {}
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
        case .queuedNeedsWake: wake.signal()
        case .queued: break
        case .refused: refused()
        }
    }

    // MARK: The connection thread's side

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

    /// Waits for the socket to be readable or for queued work, at most `milliseconds`; true when the socket is.
    func wait(socket: Int32, milliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, nfds_t(fds.count), milliseconds)
        if ready <= 0 { return false }
        if fds[1].revents != 0 { wake.drain() }
        return fds[0].revents != 0
    }

    /// Pauses for `seconds`, or less if work (or a stop) arrives.
    func sleep(seconds: Double) {
        var fds = [pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
        if poll(&fds, 1, Int32(seconds * 1000)) > 0 { wake.drain() }
    }

    /// The thread has ended: resumes everyone waiting in `stop`.
    func finished() {
        let waiters = shared.withLock { shared in
            shared.finished = true
            defer { shared.stopWaiters = [] }
            return shared.stopWaiters
        }
        waiters.forEach { $0.resume() }
    }
}
