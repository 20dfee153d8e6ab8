/// Runs tasks on an `AMQPConnection`'s own thread, between its reads and its sends. A command's task started
/// there (`CommandServer`) runs where its delivery arrived, and its answer is queued where it is sent: two
/// hand-offs between threads fewer per command, each a wake-up in the kernel. What it waits for elsewhere (a
/// database connection's queue, a call's reply) resumes it here.
///
/// The price: the tasks that prefer it share one core, and the connection does not read or send while one of
/// them runs. So only short work goes here (a command's handling, which leaves every blocking call to threads of
/// its own); a task that must not wait for the connection does not ask for it. While the connection is being made
/// again after a loss, its tasks wait for the handshake; once the connection has stopped for good, they run on the
/// shared pool.
public final class ConnectionExecutor: TaskExecutor {
    private let mailbox: ConnectionMailbox

    init(mailbox: ConnectionMailbox) {
        self.mailbox = mailbox
        mailbox.sockets.runsTasks(on: self)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        if !mailbox.enqueue(job: unowned) { globalConcurrentExecutor.enqueue(ExecutorJob(unowned)) }
    }

    /// Runs the jobs queued so far, and those they queue in turn, for a few rounds: the connection's reads and
    /// sends are not kept waiting behind a task that never stops yielding. Called on the connection's thread only.
    func runQueuedJobs(rounds: Int = 16) {
        for _ in 0..<rounds {
            let jobs = mailbox.takeJobs()
            if jobs.isEmpty { return }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }

    /// The connection's thread has ended: what it had not run yet goes to the shared pool, as everything after.
    func handOver(_ jobs: [UnownedJob]) {
        for job in jobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }
}
