import Synchronization

/// Lets a command's handler answer its caller before it ends. A handler that must go on past its caller's deadline
/// (to learn, once the database is back, whether a commit it lost the connection during went through) tells the
/// caller to retry while the caller still waits; what the handler answers in the end is then not sent.
public final class EarlyAnswer: Sendable {
    /// The answer of the command the current task handles; nil outside a command or when nobody waits for one.
    @TaskLocal public static var current: EarlyAnswer?

    private let send: @Sendable ([UInt8]) -> Void
    private let given = Mutex(false)

    init(send: @escaping @Sendable ([UInt8]) -> Void) {
        self.send = send
    }

    /// Answers 503 with `Retry-After` (`CommandServer.unavailable`) now, unless an answer was given already.
    public func retryLater() {
        let first = given.withLock { given in
            defer { given = true }
            return !given
        }
        if first { send((try? CommandRouter.failure(CommandServer.unavailable)) ?? []) }
    }

    /// Whether an answer was given early: the handler's own answer is then dropped.
    var wasGiven: Bool { given.withLock { $0 } }
}
