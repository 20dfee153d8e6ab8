import Contracts
import Foundation
import Messaging
import ScratchDatabase
@testable import ServiceKit
import Storage
import Synchronization
import Testing

/// A writer's events handed to the broker as its transaction commits, their rows claimed meanwhile and marked once
/// confirmed; what is not confirmed is left to the relay once the claim runs out. On a scratch outbox.
@Suite(.enabled(if: ScratchDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL"))
struct OutboxLaneTests {
    /// A broker that confirms (or refuses) at once, keeping what it was sent.
    final class Broker: ImmediateEventSink {
        let confirms: Bool
        let sent = Mutex<[String]>([])

        init(confirms: Bool) {
            self.confirms = confirms
        }

        var isConnected: Bool { true }

        func publish(encoded events: [EventPublisher.EncodedEvent]) async throws {
            sent.withLock { $0 += events.map(\.id) }
        }

        func publishNow(encoded events: [EventPublisher.EncodedEvent], settled: @escaping @Sendable (Result<Void, any Error>) -> Void) {
            sent.withLock { $0 += events.map(\.id) }
            settled(confirms ? .success(()) : .failure(MessagingError.unavailable))
        }
    }

    static func event() -> CloudEvent<Empty> {
        CloudEvent(id: UUID().uuidString.lowercased(), source: "test", type: "test.happened", time: "2026-12-06T00:00:00Z", subject: nil, data: Empty())
    }

    static func row(_ pool: PostgresPool, _ id: String) async throws -> [String: String]? {
        let row = try await pool.query("""
            SELECT (published_at IS NOT NULL)::text AS published, (claimed_until > now())::text AS claimed
            FROM outbox WHERE event_id = $1::uuid
            """, [id]).rows.first
        return row.map { ["published": $0["published"] ?? "", "claimed": $0["claimed"] ?? ""] }
    }

    @Test func aCommittedEventIsSentAtOnceAndItsRowMarkedOnceConfirmed() async throws {
        try await OutboxPruneTests.withScratchOutbox { pool in
            let broker = Broker(confirms: true)
            let relay = OutboxRelay(pool: pool, publisher: broker, logger: OutboxPruneTests.logger)
            let lane = OutboxLane(sink: broker, wake: OutboxWake())
            OutboxLanes.shared.open(lane, for: pool.id)
            defer { OutboxLanes.shared.close(for: pool.id) }
            let event = Self.event()
            try await pool.transaction { try await Outbox.add(event, routingKey: "test.happened", on: $0) }
            #expect(broker.sent.withLock { $0 } == [event.id])
            #expect(try await Self.row(pool, event.id) == ["published": "false", "claimed": "true"])
            // The relay leaves a claimed row to its writer, then marks it.
            #expect(try await relay.relayBatch() == 0)
            await relay.mark(lane)
            #expect(try await Self.row(pool, event.id)?["published"] == "true")
            #expect(broker.sent.withLock { $0 } == [event.id])
        }
    }

    @Test func anEventRolledBackIsNeitherSentNorKept() async throws {
        try await OutboxPruneTests.withScratchOutbox { pool in
            let broker = Broker(confirms: true)
            OutboxLanes.shared.open(OutboxLane(sink: broker, wake: OutboxWake()), for: pool.id)
            defer { OutboxLanes.shared.close(for: pool.id) }
            struct Abandoned: Error {}
            await #expect(throws: Abandoned.self) {
                try await pool.transaction { connection in
                    try await Outbox.add(Self.event(), routingKey: "test.happened", on: connection)
                    throw Abandoned()
                }
            }
            #expect(broker.sent.withLock { $0 }.isEmpty)
            let left = try await pool.query("SELECT count(*) AS n FROM outbox")
            #expect(left.rows.first?["n"] == "0")
        }
    }

    @Test func anEventTheBrokerRefusedIsPublishedByTheRelayOnceItsClaimRunsOut() async throws {
        try await OutboxPruneTests.withScratchOutbox { pool in
            let refusing = Broker(confirms: false)
            let lane = OutboxLane(sink: refusing, wake: OutboxWake())
            OutboxLanes.shared.open(lane, for: pool.id)
            let event = Self.event()
            try await pool.transaction { try await Outbox.add(event, routingKey: "test.happened", on: $0) }
            OutboxLanes.shared.close(for: pool.id)
            let broker = Broker(confirms: true)
            let relay = OutboxRelay(pool: pool, publisher: broker, logger: OutboxPruneTests.logger)
            await relay.mark(lane)
            #expect(try await relay.relayBatch() == 0, "taken while claimed")
            _ = try await pool.query("UPDATE outbox SET claimed_until = now() - interval '1 second'")
            #expect(try await relay.relayBatch() == 1)
            #expect(broker.sent.withLock { $0 } == [event.id])
            #expect(try await Self.row(pool, event.id)?["published"] == "true")
        }
    }

    /// The relay as a service runs it: it opens the lane for its pool, marks what the broker confirmed, and closes the
    /// lane when it stops.
    @Test func aRunningRelayOpensItsLaneAndMarksWhatWasConfirmed() async throws {
        try await OutboxPruneTests.withScratchOutbox { pool in
            let broker = Broker(confirms: true)
            let relay = OutboxRelay(pool: pool, publisher: broker, logger: OutboxPruneTests.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await relay.run() }
                let deadline = ContinuousClock.now + .seconds(10)
                while OutboxLanes.shared.lane(for: pool.id) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
                let event = Self.event()
                try await pool.transaction { try await Outbox.add(event, routingKey: "test.happened", on: $0) }
                while try await Self.row(pool, event.id)?["published"] != "true", ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(try await Self.row(pool, event.id)?["published"] == "true")
                #expect(broker.sent.withLock { $0 } == [event.id], "published once, by its writer")
                group.cancelAll()
            }
            #expect(OutboxLanes.shared.lane(for: pool.id) == nil)
        }
    }

    @Test func withoutALaneTheRowIsTheRelaysAtOnce() async throws {
        try await OutboxPruneTests.withScratchOutbox { pool in
            let event = Self.event()
            try await pool.transaction { try await Outbox.add(event, routingKey: "test.happened", on: $0) }
            let broker = Broker(confirms: true)
            #expect(try await OutboxRelay(pool: pool, publisher: broker, logger: OutboxPruneTests.logger).relayBatch() == 1)
            #expect(broker.sent.withLock { $0 } == [event.id])
        }
    }

    /// A batch added by the caller's own statement (`Outbox.addAllSQL`, as the votes ledger marks a round): the events
    /// whose rows the statement added leave at its commit, claimed; one it left out (`onlyIds`) is not sent.
    static func addBatch(_ pool: PostgresPool, _ events: [EventPublisher.EncodedEvent], only: [String]) async throws {
        let exit = Outbox.BatchExit(pool: pool)
        let sql = Outbox.addAllSQL(ids: "$1::uuid[]", routingKeys: "$2::text[]", payloads: "$3::jsonb[]",
                                   onlyIds: "SELECT unnest($4::uuid[])", claim: "$5::interval")
        let literal: ([String]) -> String = PostgresArray.literal
        let statement = PostgresStatement(sql, [literal(events.map(\.id)), literal(events.map(\.routingKey)),
                                                literal(events.map { String(decoding: $0.body, as: UTF8.self) }),
                                                literal(only), exit.claim])
        try await pool.withConnection { connection in
            let added = try await connection.pipeline([statement])[0]
            exit.send(events, added: Set(added.rows.compactMap { $0["event_id"] }), afterCommitOf: connection)
        }
    }

    static func encoded() -> EventPublisher.EncodedEvent {
        let event = Self.event()
        return EventPublisher.EncodedEvent(id: event.id, type: event.type, routingKey: "test.happened",
                                           body: Array(#"{"id":"\#(event.id)","type":"test.happened"}"#.utf8))
    }

    @Test func aBatchsAddedEventsLeaveAtItsCommitClaimed() async throws {
        try await OutboxPruneTests.withScratchOutbox { pool in
            let broker = Broker(confirms: true)
            OutboxLanes.shared.open(OutboxLane(sink: broker, wake: OutboxWake()), for: pool.id)
            defer { OutboxLanes.shared.close(for: pool.id) }
            let events = (0..<3).map { _ in Self.encoded() }
            try await Self.addBatch(pool, events, only: [events[0].id, events[2].id])
            #expect(broker.sent.withLock { $0 } == [events[0].id, events[2].id])
            #expect(try await Self.row(pool, events[0].id) == ["published": "false", "claimed": "true"])
            #expect(try await Self.row(pool, events[1].id) == nil)
            let relay = OutboxRelay(pool: pool, publisher: Broker(confirms: true), logger: OutboxPruneTests.logger)
            #expect(try await relay.relayBatch() == 0, "taken while claimed")
        }
    }

    @Test func withoutALaneABatchIsTheRelaysAtOnce() async throws {
        try await OutboxPruneTests.withScratchOutbox { pool in
            let events = (0..<2).map { _ in Self.encoded() }
            try await Self.addBatch(pool, events, only: events.map(\.id))
            let broker = Broker(confirms: true)
            #expect(try await OutboxRelay(pool: pool, publisher: broker, logger: OutboxPruneTests.logger).relayBatch() == 2)
            #expect(broker.sent.withLock { $0 } == events.map(\.id))
        }
    }
}
