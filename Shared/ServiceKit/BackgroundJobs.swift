import Runtime

/// The running background jobs of one service: each in a task the host owns, so a stop cancels every one of them
/// and waits until they have returned, instead of leaving them to be cut off by the process exit.
public final class BackgroundJobs: Sendable {
    private let tasks: [(name: String, task: Task<Void, Never>)]
    private let logger: Logger

    private init(tasks: [(name: String, task: Task<Void, Never>)], logger: Logger) {
        self.tasks = tasks
        self.logger = logger
    }

    public static func start(_ jobs: [BackgroundJob], logger: Logger) -> BackgroundJobs {
        BackgroundJobs(tasks: jobs.map { job in (job.name, Task { await job.run() }) }, logger: logger)
    }

    public var names: [String] { tasks.map(\.name) }

    /// Cancels every job, then waits for each to return.
    public func stop() async {
        for (_, task) in tasks { task.cancel() }
        for (name, task) in tasks {
            await task.value
            logger.debug("background job stopped", ["job": name])
        }
    }
}
