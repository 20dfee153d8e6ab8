import Foundation
import Runtime
import ServiceKit
import Synchronization
import Testing

/// The lifecycle's owners: every task a component starts ends by its `stop`, every thread can be joined, and a
/// wait for the shutdown signal ends when its task is cancelled.
@Suite struct LifecycleOwnersTests {
    @Test func stopGivesTheRunningTasksTheirGraceAndRefusesNewOnes() async {
        let tasks = OwnedTasks("test")
        let finished = Atomic<Int>(0)
        for _ in 0..<3 {
            #expect(tasks.spawn {
                try? await Task.sleep(for: .milliseconds(50))
                finished.add(1, ordering: .relaxed)
            })
        }
        #expect(tasks.count == 3)
        let left = await tasks.stop(grace: .seconds(10))
        #expect(left == 0)
        let finishedValue = finished.load(ordering: .relaxed)
        #expect(finishedValue == 3, "a task was cancelled inside its grace period")
        #expect(!tasks.spawn {}, "a task started after the stop began")
    }

    /// A task is made outside the owner's lock, so it can return before its start has recorded it: such tasks,
    /// started from many threads at once, still leave the count, and the wait for none ends after the last one.
    @Test func tasksStartedFromManyThreadsAtOnceAllEndAndAreForgotten() async {
        let tasks = OwnedTasks("test")
        let ran = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<500 {
                #expect(tasks.spawn { ran.add(1, ordering: .relaxed) })
            }
        }
        #expect(await tasks.waitUntilIdle(upTo: .seconds(30)))
        #expect(tasks.count == 0)
        #expect(ran.load(ordering: .relaxed) == 2_000)
        #expect(await tasks.stop() == 0)
    }

    @Test func stopCancelsWhatOutlastsTheGraceAndWaitsForIt() async {
        let tasks = OwnedTasks("test")
        let cancelled = Atomic<Bool>(false)
        tasks.spawn {
            try? await Task.sleep(for: .seconds(60))
            cancelled.store(Task.isCancelled, ordering: .relaxed)
        }
        let left = await tasks.stop(grace: .milliseconds(20))
        #expect(left == 0)
        let cancelledValue = cancelled.load(ordering: .relaxed)
        #expect(cancelledValue, "stop returned before the cancelled task had")
    }

    @Test func aTaskIgnoringItsCancellationHoldsTheStopOnlyForThePatience() async {
        let tasks = OwnedTasks("test")
        let release = Atomic<Bool>(false)
        tasks.spawn {
            while !release.load(ordering: .relaxed) { usleep(1_000); await Task.yield() }
        }
        let left = await tasks.stop(patience: .milliseconds(100))
        #expect(left == 1)
        release.store(true, ordering: .relaxed)
        #expect(await tasks.waitUntilIdle(upTo: .seconds(10)))
    }

    @Test func aStopFromACancelledJobStillWaitsForItsTasks() async {
        let tasks = OwnedTasks("owned by a job")
        let ended = Atomic<Bool>(false)
        tasks.spawn {
            try? await Task.sleep(for: .seconds(60))
            try? await Task.sleep(for: .milliseconds(30))   // cancelled too: ends at once, then returns
            ended.store(true, ordering: .relaxed)
        }
        let jobs = BackgroundJobs.start([.owning(tasks)], logger: Logger(service: "test", level: .error))
        await jobs.stop()
        let endedValue = ended.load(ordering: .relaxed)
        #expect(endedValue, "the owning job returned before the task it owns")
        #expect(tasks.count == 0)
    }

    @Test func detachedTasksDoNotInheritTheCallersDeadline() async {
        let tasks = OwnedTasks("test")
        let seen = Mutex<(inherited: Bool?, detached: Bool?)>((nil, nil))
        Deadline.$current.withValue(.after(.seconds(30))) {
            tasks.spawn { seen.withLock { $0.inherited = Deadline.current != nil } }
            tasks.spawnDetached { seen.withLock { $0.detached = Deadline.current != nil } }
        }
        await tasks.waitUntilIdle(upTo: .seconds(10))
        #expect(seen.withLock { $0.inherited } == true)
        #expect(seen.withLock { $0.detached } == false)
    }

    @Test func aThreadIsJoinedOnceItsBodyReturned() async {
        let ran = Atomic<Bool>(false)
        let thread = DedicatedThread.start("test-thread") {
            usleep(20_000)
            ran.store(true, ordering: .relaxed)
        }
        await thread.join()
        let ranValue = ran.load(ordering: .relaxed)
        #expect(ranValue)
        #expect(thread.isFinished)
        await thread.join()   // a second join returns at once
    }

    @Test func waitingForTheSignalEndsWhenTheWaitIsCancelled() async {
        let waiter = Task { await ShutdownSignal.next() }
        try? await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        #expect(await waiter.value == nil)
    }

    @Test func theSignalWaitBesideABodyEndsWithTheBody() async {
        let signalled = Atomic<Bool>(false)
        let answer = await ShutdownSignal.during({ 42 }, onSignal: { signalled.store(true, ordering: .relaxed) })
        #expect(answer == 42)
        let signalledValue = signalled.load(ordering: .relaxed)
        #expect(!signalledValue)
    }

    @Test func theWorkBesideTheSignalWaitIsCancelledWithIt() async {
        let stopped = Atomic<Bool>(false)
        let waiter = Task {
            await ShutdownSignal.wait(whileRunning: [{
                try? await Task.sleep(for: .seconds(60))
                stopped.store(true, ordering: .relaxed)
            }])
        }
        try? await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        #expect(await waiter.value == "cancelled")
        let stoppedValue = stopped.load(ordering: .relaxed)
        #expect(stoppedValue, "the work beside the wait was left running")
    }
}
