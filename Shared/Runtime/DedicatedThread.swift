import Foundation
import Synchronization

/// A thread of its own, for a loop that blocks in a C library (a broker connection, an HTTP or WebSocket event
/// loop, a watchdog): the one way code here starts a thread, so each has a name and an owner that can wait for it
/// to end (`join`) after telling its loop to stop. `deploy/lint-tasks` checks that no other file starts one.
public final class DedicatedThread: Sendable {
    private struct State {
        var finished = false
        var joiners: [CheckedContinuation<Void, Never>] = []
    }

    public let name: String
    private let state = Mutex(State())

    private init(name: String) {
        self.name = name
    }

    /// Starts `body` on a new thread named `name`; `stackSize` in bytes, the system's default when nil.
    @discardableResult
    public static func start(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> DedicatedThread {
        let handle = DedicatedThread(name: name)
        let thread = Thread {
            body()
            handle.finish()
        }
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
        return handle
    }

    public var isFinished: Bool { state.withLock { $0.finished } }

    /// Returns once the thread's body has returned.
    public func join() async {
        await withCheckedContinuation { continuation in
            let finished = state.withLock { state in
                if !state.finished { state.joiners.append(continuation) }
                return state.finished
            }
            if finished { continuation.resume() }
        }
    }

    private func finish() {
        let joiners = state.withLock { state in
            state.finished = true
            defer { state.joiners.removeAll() }
            return state.joiners
        }
        joiners.forEach { $0.resume() }
    }
}
