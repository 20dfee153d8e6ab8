import Glibc
import Runtime
import Synchronization

/// An I/O loop on a thread of its own that runs tasks which prefer it, as a broker connection's does: between its
/// waits it runs their jobs, and its waits cover the sockets they wait for (`SocketLoop`).
final class TestSocketLoop: TaskExecutor, Sendable {
    let sockets = SocketLoop()
    private let jobs = Mutex<[UnownedJob]>([])
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<pthread_t?>(nil)

    private init() {}

    static func start() -> TestSocketLoop {
        let loop = TestSocketLoop()
        DedicatedThread.start("test-socket-loop") { loop.run() }
        return loop
    }

    /// Whether the caller runs on the loop's thread.
    var isCurrent: Bool { thread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false } }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let refused = jobs.withLock { jobs in
            if stopping.load(ordering: .acquiring) { return true }
            jobs.append(unowned)
            return false
        }
        if refused { globalConcurrentExecutor.enqueue(ExecutorJob(unowned)) }
    }

    /// Ends the loop: its sockets' waiters are told, and jobs still queued go to the shared pool.
    func stop() {
        stopping.store(true, ordering: .releasing)
    }

    private func run() {
        sockets.enter()
        thread.withLock { $0 = pthread_self() }
        while !stopping.load(ordering: .acquiring) {
            let taken = jobs.withLock { jobs in
                defer { jobs = [] }
                return jobs
            }
            for job in taken { job.runSynchronously(on: asUnownedTaskExecutor()) }
            var descriptors: [pollfd] = []
            sockets.appendDescriptors(to: &descriptors)
            // A short wait: jobs queued from other threads do not wake it.
            if poll(&descriptors, nfds_t(descriptors.count), taken.isEmpty ? 2 : 0) > 0 { sockets.dispatch(descriptors[...]) }
        }
        sockets.end()
        let left = jobs.withLock { jobs in
            defer { jobs = [] }
            return jobs
        }
        for job in left { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }
}
