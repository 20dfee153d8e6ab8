import Testing
@testable import ServiceKit

/// The relay's wait ends at a signal, keeps a signal that came while nobody waited, and otherwise ends at its timeout.
@Suite struct OutboxWakeTests {
    @Test func aSignalEndsTheWaitLongBeforeItsTimeout() async {
        let wake = OutboxWake()
        let started = ContinuousClock.now
        async let waited = wake.wait(atMost: .seconds(30))
        try? await Task.sleep(for: .milliseconds(50))
        wake.signal()
        #expect(await waited)
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test func aSignalWithNobodyWaitingIsKeptForTheNextWaitOnly() async {
        let wake = OutboxWake()
        wake.signal()
        let first = ContinuousClock.now
        #expect(await wake.wait(atMost: .seconds(30)))
        #expect(ContinuousClock.now - first < .seconds(20))
        let second = ContinuousClock.now
        #expect(await wake.wait(atMost: .milliseconds(200)) == false)
        #expect(ContinuousClock.now - second >= .milliseconds(200))
    }

    @Test func aCancelledWaitEndsWithoutASignal() async {
        let wake = OutboxWake()
        let started = ContinuousClock.now
        let waiting = Task { await wake.wait(atMost: .seconds(30)) }
        try? await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        #expect(await waiting.value == false)
        #expect(ContinuousClock.now - started < .seconds(20))
        // The signal after it is kept for the next wait.
        wake.signal()
        #expect(await wake.wait(atMost: .seconds(30)))
    }

    /// Each database's relay has its own wake: a commit to one app's outbox does not wake the relays of the others.
    @Test func eachPoolHasAWakeOfItsOwn() async {
        final class Pool {}
        let first = Pool(), second = Pool()
        let wakes = OutboxWakes()
        #expect(wakes.wake(for: ObjectIdentifier(first)) === wakes.wake(for: ObjectIdentifier(first)))
        wakes.wake(for: ObjectIdentifier(first)).signal()
        #expect(await wakes.wake(for: ObjectIdentifier(second)).wait(atMost: .milliseconds(100)) == false)
        #expect(await wakes.wake(for: ObjectIdentifier(first)).wait(atMost: .seconds(30)))
    }
}
