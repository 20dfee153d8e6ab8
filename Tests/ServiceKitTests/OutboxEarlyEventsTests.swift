import Messaging
import ScratchDatabase
@testable import ServiceKit
import Storage
import Synchronization
import Testing

/// Events handed to the broker before the statement that adds their rows commits (`Outbox.BatchExit.sendEarly`, as
/// the votes ledger sends a round's events): each leaves once, and its row is marked once both its confirmation
/// and its commit are in, in either order. On a scratch outbox.
@Suite(.enabled(if: ScratchDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL"))
struct OutboxEarlyEventsTests {
    /// A broker that keeps its answers until the test gives them, refusing the first `refusals` publishes.
    final class SlowBroker: ImmediateEventSink {
        private struct State {
            var sent: [String] = []
            var unanswered: [@Sendable (Result<Void, any Error>) -> Void] = []
            var refusals: Int
        }

        private let state: Mutex<State>

        init(refusals: Int = 0) {
            state = Mutex(State(refusals: refusals))
        }

        var isConnected: Bool { true }
        var sent: [String] { state.withLock { $0.sent } }

        func publish(encoded events: [EventPublisher.EncodedEvent]) async throws {
            state.withLock { $0.sent += events.map(\.id) }
        }

        func publishNow(encoded events: [EventPublisher.EncodedEvent], settled: @escaping @Sendable (Result<Void, any Error>) -> Void) {
            state.withLock {
                $0.sent += events.map(\.id)
                $0.unanswered.append(settled)
            }
        }

        /// Answers every publish waiting: refused while refusals are left, else confirmed.
        func answer() {
            let answers = state.withLock { state in
                defer { state.unanswered = [] }
                return state.unanswered.map { answer in
                    guard state.refusals > 0 else { return (answer, true) }
                    state.refusals -= 1
                    return (answer, false)
                }
            }
            for (answer, confirmed) in answers { answer(confirmed ? .success(()) : .failure(MessagingError.unavailable)) }
        }
    }

    static func withLane(_ broker: SlowBroker, _ body: (PostgresPool, OutboxLane, OutboxRelay) async throws -> Void) async throws {
        try await OutboxPruneTests.withScratchOutbox { pool in
            let lane = OutboxLane(sink: broker, wake: OutboxWake())
            OutboxLanes.shared.open(lane, for: pool.id)
            defer { OutboxLanes.shared.close(for: pool.id) }
            try await body(pool, lane, OutboxRelay(pool: pool, publisher: broker, logger: OutboxPruneTests.logger))
        }
    }

    @Test func confirmedBeforeTheCommitItIsMarkedAtTheCommitAndNotSentAgain() async throws {
        let broker = SlowBroker()
        try await Self.withLane(broker) { pool, lane, relay in
            let event = OutboxLaneTests.encoded()
            Outbox.BatchExit(pool: pool).sendEarly([event])
            #expect(broker.sent == [event.id])
            broker.answer()
            try await OutboxLaneTests.addBatch(pool, [event], only: [event.id])
            await relay.mark(lane)
            #expect(try await OutboxLaneTests.row(pool, event.id)?["published"] == "true")
            #expect(broker.sent == [event.id])
            #expect(lane.earlyCount == 0)
        }
    }

    @Test func committedBeforeItsConfirmationItIsMarkedOnceConfirmed() async throws {
        let broker = SlowBroker()
        try await Self.withLane(broker) { pool, lane, relay in
            let event = OutboxLaneTests.encoded()
            Outbox.BatchExit(pool: pool).sendEarly([event])
            try await OutboxLaneTests.addBatch(pool, [event], only: [event.id])
            await relay.mark(lane)
            #expect(try await OutboxLaneTests.row(pool, event.id) == ["published": "false", "claimed": "true"])
            broker.answer()
            await relay.mark(lane)
            #expect(try await OutboxLaneTests.row(pool, event.id)?["published"] == "true")
            #expect(broker.sent == [event.id])
            #expect(lane.earlyCount == 0)
        }
    }

    @Test func refusedBeforeTheCommitItLeavesAgainAtTheCommit() async throws {
        let broker = SlowBroker(refusals: 1)
        try await Self.withLane(broker) { pool, lane, relay in
            let event = OutboxLaneTests.encoded()
            Outbox.BatchExit(pool: pool).sendEarly([event])
            broker.answer()
            try await OutboxLaneTests.addBatch(pool, [event], only: [event.id])
            #expect(broker.sent == [event.id, event.id])
            broker.answer()
            await relay.mark(lane)
            #expect(try await OutboxLaneTests.row(pool, event.id)?["published"] == "true")
            #expect(lane.earlyCount == 0)
        }
    }

    /// Not added by the statement (another transaction marked its ballot), or its statement failed: nothing waits for
    /// it any more, and no row of it is marked.
    @Test func anEventLeftOutOrAbandonedIsForgotten() async throws {
        let broker = SlowBroker()
        try await Self.withLane(broker) { pool, lane, relay in
            let leftOut = OutboxLaneTests.encoded(), abandoned = OutboxLaneTests.encoded()
            let exit = Outbox.BatchExit(pool: pool)
            exit.sendEarly([leftOut, abandoned])
            try await OutboxLaneTests.addBatch(pool, [leftOut], only: [])
            exit.abandon([abandoned])
            #expect(lane.earlyCount == 0)
            broker.answer()
            await relay.mark(lane)
            #expect(try await OutboxLaneTests.row(pool, leftOut.id) == nil)
            #expect(broker.sent == [leftOut.id, abandoned.id])
        }
    }
}
