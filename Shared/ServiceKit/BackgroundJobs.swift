import Runtime

/// The running background jobs of one service: each in a task the host owns, so a stop cancels every one of them
/// and waits until they have returned, instead of leaving them to be cut off by the process exit.
public final class BackgroundJobs: Sendable {
    public let names: [String]
    private let tasks: OwnedTasks

    private init(names: [String], tasks: OwnedTasks) {
        self.names = names
        self.tasks = tasks
    }

    public static func start(_ jobs: [BackgroundJob], logger: Logger) -> BackgroundJobs {
        let tasks = OwnedTasks("background jobs")
        for job in jobs {
            tasks.spawn {
                await job.run()
                logger.debug("background job stopped", ["job": job.name])
            }
        }
        return BackgroundJobs(names: jobs.map(\.name), tasks: tasks)
    }

    /// Cancels every job, then waits for each to return; returns how many had not returned when the wait ran out
    /// (`OwnedTasks.stop`'s patience): jobs that ignore their cancellation.
    @discardableResult
    public func stop() async -> Int {
        await tasks.stop()
    }
}
