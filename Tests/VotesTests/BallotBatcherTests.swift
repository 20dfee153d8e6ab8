import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime
import Synchronization
import TestDoubles
import Testing
@testable import VotesCore

/// The batcher over an in-memory ledger and an in-memory bus whose `posts` adds the amounts.
@Suite struct BallotBatcherTests {
    /// Ballots by request id, as the ledger's unique key keeps them, and what each round marked.
    final class MemoryLedger: BallotRecording {
        struct State {
            var recorded: [String: Ballot] = [:]
            var stored: [String: BallotLedger.Existing] = [:]
            var settled: [String: BallotResult] = [:]
            /// The events handed to the broker before their mark, by id, with their bodies.
            var published: [String: String] = [:]
            var failing = false
        }

        let state = Mutex(State())

        func record(_ ballots: [Ballot], settling settlement: BallotLedger.Settlement?) async throws
            -> [String: BallotLedger.Existing] {
            try state.withLock { state in
                if state.failing { throw LedgerError.ballotVanished("the ledger is down") }
                for outcome in settlement?.outcomes ?? [] { state.settled[outcome.ballotId] = outcome }
                var existing: [String: BallotLedger.Existing] = [:]
                for ballot in ballots {
                    if let found = state.stored[ballot.requestId] ?? state.recorded[ballot.requestId].map({ .pending($0) }) {
                        existing[ballot.ballotId] = found
                    } else {
                        state.recorded[ballot.requestId] = ballot
                    }
                }
                return existing
            }
        }

        func publishEarly(_ settlement: BallotLedger.Settlement) {
            state.withLock { state in
                for event in settlement.events { state.published[event.id] = String(decoding: event.body, as: UTF8.self) }
            }
        }

        var settledCount: Int { state.withLock { $0.settled.count } }
        func isSettled(_ ballotId: String) -> Bool { state.withLock { $0.settled[ballotId] != nil } }
    }

    /// A `posts` that applies every ballot to one running total, or refuses the ones `refuse` names.
    static func posts(on bus: InMemoryBus, refusing refuse: @escaping @Sendable (BallotToApply) -> ParseError? = { _ in nil }) {
        let total = Mutex(0.0)
        bus.serve(.posts, ApplyBallots.type, ApplyBallots.self) { command -> BallotsApplied in
            // A round trip's pause, so that ballots arriving meanwhile queue for the next round as they do for real.
            try await Task.sleep(for: .milliseconds(2))
            let results = command.payload.groups.flatMap(\.ballots).map { ballot -> BallotResult in
                if let error = refuse(ballot) { return BallotResult(ballotId: ballot.ballotId, error: error) }
                let running = total.withLock { value -> Double in
                    value += ballot.value
                    return value
                }
                return BallotResult(ballotId: ballot.ballotId, amount: ballot.value, total: running,
                                    sequence: Int(running), updatedAt: "2026-11-30T14:02:51.492Z")
            }
            return BallotsApplied(outcomes: results)
        }
    }

    static func ballot(_ requestId: String = UUID().uuidString) -> Ballot {
        Ballot(ballotId: TimeOrderedUUID.string(), requestId: requestId, voter: .anonymous,
               vote: CastVote(className: "Cat", objectId: "a", field: "votes", kind: .increment, value: 1))
    }

    static func batcher(_ ledger: MemoryLedger, _ bus: InMemoryBus) -> BallotBatcher {
        BallotBatcher(ledger: ledger, client: RPCClient(bus: bus), configuration: VotesConfiguration())
    }

    /// Waits for the batcher's last round to mark what it answered: the mark follows the answers.
    static func waitUntilSettled(_ ledger: MemoryLedger, _ count: Int) async {
        for _ in 0..<1000 where ledger.settledCount < count { await Task.yield(); try? await Task.sleep(for: .milliseconds(5)) }
    }

    @Test func concurrentBallotsAreBatchedAndGetDistinctTotals() async throws {
        let ledger = MemoryLedger(), bus = InMemoryBus()
        Self.posts(on: bus)
        let batcher = Self.batcher(ledger, bus)
        let n = 40
        let totals = try await withThrowingTaskGroup(of: Double.self) { group in
            for _ in 0..<n {
                group.addTask {
                    guard case .applied(let outcome) = try await batcher.submit(Self.ballot(), recorded: false) else {
                        throw LedgerError.ballotVanished("not applied")
                    }
                    return try outcome.get().total
                }
            }
            return try await group.reduce(into: [Double]()) { $0.append($1) }
        }
        #expect(Set(totals) == Set((1...n).map(Double.init)))
        // Fewer posts calls than ballots: the ballots that came during a round went together in the next.
        #expect(bus.calls.count < n)
        await Self.waitUntilSettled(ledger, n)
        #expect(ledger.settledCount == n)
    }

    /// A vote's event leaves as its voter is answered, not a ledger trip later, under the ballot's own id: a retry
    /// or the recovery that marks the ballot later writes the same event.
    @Test func anAppliedBallotsEventLeavesBeforeItsVoterIsAnswered() async throws {
        let ledger = MemoryLedger(), bus = InMemoryBus()
        Self.posts(on: bus)
        let ballot = Self.ballot()
        let answer = try await Self.batcher(ledger, bus).submit(ballot, recorded: false)
        let published = ledger.state.withLock { $0.published }
        guard case .applied(let outcome) = answer else {
            Issue.record("not sent to posts")
            return
        }
        #expect(try outcome.get().total == 1)
        #expect(Array(published.keys) == [ballot.ballotId.lowercased()])
        let body = JSONValue.parse(Array((published.values.first ?? "").utf8))
        #expect(body?["id"] == .string(ballot.ballotId.lowercased()) && body?["type"] == .string("vote.cast.v1"))
        #expect(body?["data"]?["ballotId"] == .string(ballot.ballotId) && body?["data"]?["total"] == .number(1))
    }

    @Test func aRefusedBallotHasNoEvent() async throws {
        let ledger = MemoryLedger(), bus = InMemoryBus()
        Self.posts(on: bus) { _ in ParseError(.objectNotFound, "Object not found.") }
        _ = try await Self.batcher(ledger, bus).submit(Self.ballot(), recorded: false)
        #expect(ledger.state.withLock { $0.published.isEmpty })
    }

    @Test func aRefusalIsAnsweredOnlyOnceTheLedgerMarkedIt() async throws {
        let ledger = MemoryLedger(), bus = InMemoryBus()
        Self.posts(on: bus) { _ in ParseError(.objectNotFound, "Object not found.") }
        let ballot = Self.ballot()
        guard case .applied(let outcome) = try await Self.batcher(ledger, bus).submit(ballot, recorded: false) else {
            Issue.record("not sent to posts")
            return
        }
        #expect(throws: ParseError(.objectNotFound, "Object not found.")) { try outcome.get() }
        #expect(ledger.isSettled(ballot.ballotId))
    }

    @Test func aRequestIdInTheLedgerIsAnsweredWithWhatIsThereAndNotSent() async throws {
        let ledger = MemoryLedger(), bus = InMemoryBus()
        Self.posts(on: bus)
        let first = Self.ballot("r1")
        let applied = AppliedBallot(total: 7, updatedAt: "x")
        ledger.state.withLock { $0.stored["r1"] = .applied(first, applied) }
        let answer = try await Self.batcher(ledger, bus).submit(Self.ballot("r1"), recorded: false)
        guard case .existing(.applied(let stored, let got)) = answer else {
            Issue.record("expected the stored ballot, got \(answer)")
            return
        }
        #expect(stored == first && got == applied)
        #expect(bus.calls.isEmpty)
    }

    @Test func aRecoveredBallotIsSentWithoutBeingRecordedAgain() async throws {
        let ledger = MemoryLedger(), bus = InMemoryBus()
        Self.posts(on: bus)
        let ballot = Self.ballot()
        guard case .applied(let outcome) = try await Self.batcher(ledger, bus).submit(ballot, recorded: true) else {
            Issue.record("not sent to posts")
            return
        }
        #expect(try outcome.get().total == 1)
        #expect(ledger.state.withLock { $0.recorded.isEmpty })
    }

    @Test func anUnreachablePostsFailsTheBallotAndLeavesItPending() async throws {
        let ledger = MemoryLedger(), bus = InMemoryBus()   // nobody serves posts
        let ballot = Self.ballot()
        await #expect(throws: InMemoryBusError.self) { try await Self.batcher(ledger, bus).submit(ballot, recorded: false) }
        #expect(ledger.state.withLock { $0.recorded[ballot.requestId] } == ballot)
        #expect(!ledger.isSettled(ballot.ballotId))
    }

    @Test func anUnreachableLedgerFailsTheBallotBeforeAnythingIsSent() async throws {
        let ledger = MemoryLedger(), bus = InMemoryBus()
        Self.posts(on: bus)
        ledger.state.withLock { $0.failing = true }
        await #expect(throws: LedgerError.self) { try await Self.batcher(ledger, bus).submit(Self.ballot(), recorded: false) }
        #expect(bus.calls.isEmpty)
    }
}
