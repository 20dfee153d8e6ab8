import Dispatch

/// The moment the caller of the work in progress stops waiting for it, on this process's monotonic clock.
///
/// A service handling a command runs its handler with `Deadline.current` set (from the command's headers), and
/// every PostgreSQL statement the handler runs is cancelled when it passes, so work nobody waits for any more
/// stops instead of holding a connection, a lock, or a write the client was told had failed.
public struct Deadline: Sendable, Comparable, CustomStringConvertible {
    /// `DispatchTime`'s nanoseconds: a plain number, so a watchdog can compare it without allocating.
    public let uptimeNanoseconds: UInt64

    public init(uptimeNanoseconds: UInt64) {
        self.uptimeNanoseconds = uptimeNanoseconds
    }

    /// `duration` from now (a negative duration gives a deadline already passed).
    public static func after(_ duration: Duration) -> Deadline {
        let now = DispatchTime.now().uptimeNanoseconds
        let nanoseconds = duration.totalNanoseconds
        if nanoseconds <= 0 { return Deadline(uptimeNanoseconds: now - min(now, nanoseconds.magnitude)) }
        let (sum, overflow) = now.addingReportingOverflow(UInt64(nanoseconds))
        return Deadline(uptimeNanoseconds: overflow ? .max : sum)
    }

    /// Time left; zero once passed.
    public var remaining: Duration {
        let now = DispatchTime.now().uptimeNanoseconds
        guard uptimeNanoseconds > now else { return .zero }
        return .nanoseconds(Int64(clamping: uptimeNanoseconds - now))
    }

    public var hasPassed: Bool { DispatchTime.now().uptimeNanoseconds >= uptimeNanoseconds }

    /// The earlier of the two.
    public func capped(by other: Deadline?) -> Deadline {
        guard let other else { return self }
        return min(self, other)
    }

    public static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.uptimeNanoseconds < rhs.uptimeNanoseconds }

    public var description: String { "\(remaining.totalMilliseconds) ms from now" }

    /// The deadline of the command being handled by the current task, if its caller sent one.
    @TaskLocal public static var current: Deadline?
}

/// The work's deadline passed before it was done (a statement cancelled, a wait given up): a normal answer for
/// a client that has stopped waiting, never a reason to run the work again.
public struct DeadlineExceeded: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was stopped ("the statement", "waiting for a database connection").
    public let what: String

    public init(_ what: String) {
        self.what = what
    }

    public var description: String { "\(what) ran past the request's deadline" }
}

extension Duration {
    /// The whole duration in nanoseconds, saturating at Int64's bounds.
    public var totalNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled.addingReportingOverflow(attoseconds / 1_000_000_000).overflow ? (seconds < 0 ? .min : .max)
            : scaled + attoseconds / 1_000_000_000
    }
}
