import Runtime
import Synchronization
import Testing
@testable import Messaging

@Suite struct TransientRetryUnitTests {
    struct Failure: ClassifiedFailure {
        var failureKind: FailureKind
    }

    /// Fails with `failures` in turn, then answers `done`; counts its runs.
    final class Script: Sendable {
        private let remaining: Mutex<[Failure]>
        let runs = Atomic<Int>(0)
        init(_ failures: [Failure]) { remaining = Mutex(failures) }

        func run() throws -> String {
            runs.add(1, ordering: .relaxed)
            if let next = remaining.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw next }
            return "done"
        }
    }

    @Test func transientFailuresAreRunAgainUntilTheWorkSucceeds() async throws {
        let script = Script([Failure(failureKind: .transient), Failure(failureKind: .transient)])
        let retry = TransientRetry(deadline: .after(.seconds(10)), jitter: .none)
        var heard: [Int] = []
        let answer = try await retry.run({ try script.run() }, retrying: { _, attempt in heard.append(attempt) })
        #expect(answer == "done")
        #expect(script.runs.load(ordering: .relaxed) == 3)
        #expect(heard == [1, 2])
    }

    @Test(arguments: [FailureKind.deterministic, .ambiguous])
    func aFailureThatIsNotTransientIsThrownAtOnce(kind: FailureKind) async throws {
        let script = Script([Failure(failureKind: kind)])
        let retry = TransientRetry(deadline: .after(.seconds(10)), jitter: .none)
        await #expect(throws: Failure.self) { try await retry.run { try script.run() } }
        #expect(script.runs.load(ordering: .relaxed) == 1)
    }

    @Test func anErrorThatSaysNothingOfItselfIsDeterministic() {
        struct Unclassified: Error {}
        #expect(FailureKind.of(Unclassified()) == .deterministic)
        #expect(FailureKind.of(MessagingError.unavailable) == .transient)
        #expect(FailureKind.of(MessagingError.timeout(queue: "posts", milliseconds: 1)) == .deterministic)
    }

    @Test func theLastTransientFailureIsThrownWhenTheDeadlineLeavesNoRoomForAnotherTry() async throws {
        let script = Script(Array(repeating: Failure(failureKind: .transient), count: 1_000))
        // The first pause (50 ms) and the least useful time (50 ms) do not fit in 80 ms: one run only.
        let retry = TransientRetry(deadline: .after(.milliseconds(80)), jitter: .none)
        await #expect(throws: Failure.self) { try await retry.run { try script.run() } }
        #expect(script.runs.load(ordering: .relaxed) == 1)
    }
}
