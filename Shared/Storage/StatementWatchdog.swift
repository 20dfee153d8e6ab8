import CLibPQ
import Dispatch
import Foundation
import Runtime

/// Cancels statements that run past their deadline (`Deadline.current` of the task that sent them).
///
/// One thread per process sleeps until the earliest deadline of the statements in progress and then asks the
/// server to cancel the late ones (libpq's `PQcancel`, made to be called from another thread). A statement
/// that ends while its cancel is being sent waits for the cancel to be out before its session runs anything
/// else, so a cancel meant for one statement never lands on the next: the server ignores a cancel that reaches
/// an idle session. Starting a statement only takes a lock; the thread is woken only when a statement's deadline
/// is earlier than the one it already sleeps until.
///
/// A pool owns one for all its connections (a connection opened alone, one of its own); the thread ends after it
/// has had nothing to watch for `idleExit`, and the next statement with a deadline starts it again.
final class StatementWatchdog: @unchecked Sendable {  // Safe: every field is guarded by `condition`.
    private static let idleExit: Double = 30

    private struct Watch {
        let deadline: UInt64
        let cancel: OpaquePointer
        var state = State.running
    }

    private enum State { case running, cancelling, cancelled }

    private let condition = NSCondition()
    private var watches: [Int: Watch] = [:]
    private var lastToken = 0
    private var threadStarted = false
    /// When the thread wakes next if nothing signals it (`.max`: it sleeps until signalled).
    private var plannedWake = UInt64.max

    /// Watches a statement that is about to run on the session `cancel` belongs to; pass the token to `end`.
    func begin(deadline: Deadline, cancel: OpaquePointer) -> Int {
        condition.lock()
        defer { condition.unlock() }
        lastToken &+= 1
        watches[lastToken] = Watch(deadline: deadline.uptimeNanoseconds, cancel: cancel)
        if !threadStarted {
            threadStarted = true
            // Ends by itself once idle (`idleExit`), so nobody joins it.
            DedicatedThread.start("postgres-statement-watchdog") { [self] in run() }
        }
        if deadline.uptimeNanoseconds < plannedWake { condition.broadcast() }
        return lastToken
    }

    /// The statement is over. Returns true when it was sent a cancel; waits for a cancel being sent to be out.
    @discardableResult
    func end(_ token: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while watches[token]?.state == .cancelling { condition.wait() }
        return watches.removeValue(forKey: token).map { $0.state == .cancelled } ?? false
    }

    private func run() {
        condition.lock()
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let late = watches.filter { $0.value.state == .running && $0.value.deadline <= now }
            if !late.isEmpty {
                for token in late.keys { watches[token]?.state = .cancelling }
                // Sent without the lock held: a cancel opens a connection to the server, and other sessions'
                // statements must not wait for it. The sessions concerned wait in `end` meanwhile.
                condition.unlock()
                for watch in late.values { Self.sendCancel(watch.cancel) }
                condition.lock()
                for token in late.keys { watches[token]?.state = .cancelled }
                condition.broadcast()
                continue
            }
            plannedWake = watches.values.lazy.filter { $0.state == .running }.map(\.deadline).min() ?? .max
            if plannedWake == .max {
                let signalled = condition.wait(until: Date(timeIntervalSinceNow: Self.idleExit))
                if !signalled && watches.isEmpty {
                    threadStarted = false
                    condition.unlock()
                    return
                }
            } else {
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(plannedWake - now) / 1e9))
            }
        }
    }

    private static func sendCancel(_ cancel: OpaquePointer) {
        var reason = [CChar](repeating: 0, count: 256)
        _ = PQcancel(cancel, &reason, Int32(reason.count))
    }
}
