import Runtime
import Synchronization

/// Jobs that arrive while a batch is under way wait for it, then go together as the next batch; a job that finds
/// none under way starts one at once, so a lone job waits for nothing. One task (detached: a batch takes no job's
/// task-locals) runs batches until none waits. The coalescing behind `CreateBatcher` and `GetBatcher`.
final class BatchQueue<Job: Sendable>: Sendable {
    private let state = Mutex<(waiting: [Job], running: Bool)>(([], false))
    /// The task that runs the batches, stopped with the service (`BackgroundJob.owning`) once its commands drained.
    let tasks: OwnedTasks
    private let run: @Sendable ([Job]) async -> Void
    private let abandon: @Sendable ([Job]) -> Void

    /// `run` answers every job of a batch. `abandon` answers jobs no task will run, once the service is stopping.
    init(_ name: String, run: @escaping @Sendable ([Job]) async -> Void, abandon: @escaping @Sendable ([Job]) -> Void) {
        tasks = OwnedTasks(name)
        self.run = run
        self.abandon = abandon
    }

    /// How many jobs wait for the batch under way.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    func submit(_ job: Job) {
        let batch = state.withLock { state -> [Job]? in
            state.waiting.append(job)
            guard !state.running else { return nil }
            state.running = true
            defer { state.waiting = [] }
            return state.waiting
        }
        if let batch { start(batch) }
    }

    /// The batches run where the job that starts them does when that is an I/O loop's thread (a command's, on its
    /// broker connection's): their statements then wait on that loop too, and hand nothing to another thread.
    private func start(_ jobs: [Job]) {
        let started = tasks.spawnDetached(on: SocketLoop.current?.taskExecutor) { [self] in
            var batch = jobs
            while true {
                await run(batch)
                let next = state.withLock { state -> [Job]? in
                    guard !state.waiting.isEmpty else {
                        state.running = false
                        return nil
                    }
                    defer { state.waiting = [] }
                    return state.waiting
                }
                guard let next else { return }
                batch = next
            }
        }
        guard !started else { return }
        let waiting = state.withLock { state in
            defer { state = ([], false) }
            return state.waiting
        }
        abandon(jobs + waiting)
    }
}
