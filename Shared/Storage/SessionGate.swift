import Foundation

/// Lets one piece of work at a time use a `LibPQSession`: the connection's queue (which waits its turn) or an I/O
/// loop's thread (which does not wait, and leaves the work to the queue when the session is in use).
final class SessionGate: @unchecked Sendable {  // Safe: `busy` is guarded by `condition`.
    private let condition = NSCondition()
    private var busy = false

    /// Takes the session if it is free.
    func tryEnter() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if busy { return false }
        busy = true
        return true
    }

    /// Takes the session, waiting while it is in use (only on the connection's queue, never on an I/O loop).
    func enter() {
        condition.lock()
        defer { condition.unlock() }
        while busy { condition.wait() }
        busy = true
    }

    func leave() {
        condition.lock()
        defer { condition.unlock() }
        busy = false
        condition.signal()
    }
}
