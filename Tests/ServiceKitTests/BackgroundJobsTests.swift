import Runtime
import ServiceKit
import Synchronization
import Testing

/// A job that loops until its task is cancelled, and says what it went through.
private final class LoopingJob: Sendable {
    enum Stage: Equatable { case notStarted, running, sawCancellation, returned }
    let stage = Mutex(Stage.notStarted)

    var job: BackgroundJob {
        BackgroundJob(name: "looping") { [self] in
            stage.withLock { $0 = .running }
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
            stage.withLock { $0 = .sawCancellation }
            // Work after the cancellation (a last flush) still finishes before `stop` returns.
            for _ in 0..<1000 { await Task.yield() }
            stage.withLock { $0 = .returned }
        }
    }
}

@Suite struct BackgroundJobsTests {
    let logger = Logger(service: "test", level: .error)

    @Test func stopCancelsEveryJobAndWaitsUntilItReturned() async throws {
        let first = LoopingJob(), second = LoopingJob()
        let jobs = BackgroundJobs.start([first.job, second.job], logger: logger)
        #expect(jobs.names == ["looping", "looping"])
        // Both run on their own until the stop.
        for _ in 0..<200 where first.stage.withLock({ $0 }) != .running || second.stage.withLock({ $0 }) != .running {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(first.stage.withLock { $0 } == .running)
        #expect(second.stage.withLock { $0 } == .running)

        await jobs.stop()
        #expect(first.stage.withLock { $0 } == .returned)
        #expect(second.stage.withLock { $0 } == .returned)
    }

    @Test func aJobThatEndsByItselfDoesNotHoldUpTheStop() async {
        let jobs = BackgroundJobs.start([BackgroundJob(name: "one-off") {}], logger: logger)
        await jobs.stop()
        #expect(jobs.names == ["one-off"])
    }
}
