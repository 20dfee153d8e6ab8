/// Work a service does beside answering commands for as long as it runs (completing stale ballots, relaying the
/// outbox). The host starts it once the service consumes its queue and cancels it while draining, so a job must
/// return soon after its task is cancelled.
public struct BackgroundJob: Sendable {
    public var name: String
    public var run: @Sendable () async -> Void

    public init(name: String, run: @escaping @Sendable () async -> Void) {
        self.name = name
        self.run = run
    }
}
