import Glibc

/// The sockets that tasks running on an I/O loop's thread (a broker connection's) wait for, so that such a task
/// can wait for another connection of its own, a database session's, without handing the wait to another thread:
/// the loop polls them beside its own socket and calls each waiter back, on its thread, once its socket is ready.
///
/// Everything here but `current` runs on the loop's thread only (`runsTasks`, before that thread starts).
public final class SocketLoop: @unchecked Sendable {  // Safe: its state is touched on the loop's thread only.
    public enum Interest: Sendable { case readable, writable }

    private struct Waiter {
        let socket: Int32
        let interest: Interest
        /// Told whether the loop still runs: false once it has ended, when the waiter must finish elsewhere.
        let ready: (_ loopRuns: Bool) -> Void
    }

    private var waiters: [Waiter] = []
    private var ended = false
    /// The executor of the tasks that run on the loop's thread: work a task starts for others (a batch of
    /// statements) can run there too.
    public private(set) weak var taskExecutor: (any TaskExecutor)?

    public init() {}

    /// Called once, before the loop's thread starts.
    public func runsTasks(on executor: any TaskExecutor) {
        taskExecutor = executor
    }

    /// The loop whose thread the caller runs on, if any.
    public static var current: SocketLoop? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<SocketLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Called first on the loop's thread, which the loop outlives.
    public func enter() {
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Calls `ready` on this thread once `socket` is ready for `interest`, or with false once the loop has ended.
    public func wait(for socket: Int32, _ interest: Interest, _ ready: @escaping (_ loopRuns: Bool) -> Void) {
        if ended { return ready(false) }
        waiters.append(Waiter(socket: socket, interest: interest, ready: ready))
    }

    public var hasWaiters: Bool { !waiters.isEmpty }

    /// The waiters' sockets, to poll after the loop's own.
    public func appendDescriptors(to descriptors: inout [pollfd]) {
        for waiter in waiters {
            let events = waiter.interest == .readable ? POLLIN : POLLOUT
            descriptors.append(pollfd(fd: waiter.socket, events: Int16(events), revents: 0))
        }
    }

    /// Calls back the waiters whose sockets `descriptors` (what `appendDescriptors` added, after a poll) found
    /// ready, or failed: a closed or broken socket is for the waiter to find out.
    public func dispatch(_ descriptors: ArraySlice<pollfd>) {
        guard descriptors.contains(where: { $0.revents != 0 }) else { return }
        var ready: [Waiter] = []
        var waiting: [Waiter] = []
        for (waiter, descriptor) in zip(waiters, descriptors) {
            if descriptor.revents != 0 { ready.append(waiter) } else { waiting.append(waiter) }
        }
        // Waiters that arrive during the callbacks belong after the ones still waiting.
        waiters = waiting + waiters.dropFirst(descriptors.count)
        for waiter in ready { waiter.ready(true) }
    }

    /// Polls the waiters' sockets alone, without waiting.
    public func pollWaiters() {
        guard hasWaiters else { return }
        var descriptors: [pollfd] = []
        appendDescriptors(to: &descriptors)
        if poll(&descriptors, nfds_t(descriptors.count), 0) > 0 { dispatch(descriptors[...]) }
    }

    /// The loop has ended: every waiter is told so, and later ones at once.
    public func end() {
        ended = true
        let left = waiters
        waiters = []
        for waiter in left { waiter.ready(false) }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
