import Foundation
import Runtime

/// How a command carries its caller's deadline, and the deadline a service handles it by.
///
/// The broker's per-message expiration only drops a command nobody took; once a service holds it, nothing says
/// how long its caller still waits. So a call also sends its deadline as wall-clock milliseconds (`x-deadline-ms`)
/// and its whole timeout (`x-timeout-ms`, which bounds the first when the two hosts' clocks disagree).
enum CommandDeadline {
    static let deadlineHeader = "x-deadline-ms"
    static let timeoutHeader = "x-timeout-ms"
    /// Work stops this much before the caller's deadline (a quarter of the time left, when that is less), so an
    /// answer sent just before the end still reaches a caller that is waiting: a write is not committed after its
    /// client has been told it timed out.
    static let answerMargin = Duration.milliseconds(250)

    static func headers(timeoutMilliseconds: Int) -> [String: String] {
        let now = Int((Date().timeIntervalSince1970 * 1000).rounded(.down))
        return [deadlineHeader: String(now + timeoutMilliseconds), timeoutHeader: String(timeoutMilliseconds)]
    }

    /// The deadline to handle a command by, or nil when its caller sent none.
    static func forHandling(_ headers: [String: String]) -> Deadline? {
        let now = Int((Date().timeIntervalSince1970 * 1000).rounded(.down))
        // A header from elsewhere may hold any number: the subtraction must not overflow.
        let untilDeadline = headers[deadlineHeader].flatMap { Int($0) }.map { $0.subtractingReportingOverflow(now) }
            .map { $0.overflow ? Int.min : $0.partialValue }
        let timeout = headers[timeoutHeader].flatMap { Int($0) }
        let bounds = [untilDeadline, timeout].compactMap { $0 }
        guard let left = bounds.min() else { return nil }
        guard left > 0 else { return Deadline.after(.zero) }
        let remaining = Duration.milliseconds(left)
        return Deadline.after(remaining - min(answerMargin, remaining / 4))
    }
}
