import Runtime

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

extension BackgroundJob {
    /// A job that only holds `tasks` until the service stops, then stops them: how a component that starts tasks of
    /// its own (reloads, detached jobs) puts them under the service's lifecycle, stopped with the other jobs after
    /// the commands have drained.
    public static func owning(_ tasks: OwnedTasks) -> BackgroundJob {
        BackgroundJob(name: tasks.name) {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
            }
            await tasks.stop()
        }
    }
}
