import Runtime

/// Runs a command's handler again after a transient failure (`FailureKind.transient`: the database restarting or
/// failing over, a lost connection), with growing pauses, for as long as its caller still waits: the work is
/// retried where it is, not sent back to the queue, so a short outage costs the client some latency instead of
/// an error, and no command is dead-lettered for it.
public struct TransientRetry: Sendable {
    /// The first pause; each next one doubles, up to `longestPause` (also the pace of other waits for a transient
    /// fault to pass, such as ServiceKit's `LostCommit`).
    public static let firstPause = Duration.milliseconds(50)
    public static let longestPause = Duration.seconds(1)
    /// Another try is worth starting only with this much time left after its pause.
    static let leastUsefulTime = Duration.milliseconds(50)

    let deadline: Deadline
    let jitter: BackoffJitter

    init(deadline: Deadline, jitter: BackoffJitter = .random()) {
        self.deadline = deadline
        self.jitter = jitter
    }

    /// `body`'s result; the last failure when it is not transient or the deadline leaves no room for another try.
    /// `retrying` hears of each failure that is tried again, with the number of the try that failed.
    func run<T: Sendable>(_ body: () async throws -> T,
                          retrying: (any Error, Int) -> Void = { _, _ in }) async throws -> T {
        var jitter = self.jitter
        var attempt = 1
        var pause = Self.firstPause
        while true {
            do {
                return try await body()
            } catch {
                guard FailureKind.of(error) == .transient else { throw error }
                let wait = Duration.milliseconds(jitter.apply(to: pause.totalMilliseconds))
                guard deadline.remaining > wait + Self.leastUsefulTime else { throw error }
                retrying(error, attempt)
                try? await Task.sleep(for: wait)
                attempt += 1
                pause = min(pause * 2, Self.longestPause)
            }
        }
    }
}
