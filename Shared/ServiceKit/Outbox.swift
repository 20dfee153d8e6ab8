import Contracts
import Messaging
import ParseWire
import Runtime
import Storage

/// The transactional outbox: an event is written in the same transaction as the change it describes, so it is
/// published if and only if the change is committed. The service's `OutboxRelay` publishes it afterwards.
public enum Outbox {
    /// Call inside the transaction that makes the change (`pool.transaction { connection in ... }`); the row goes in
    /// the round trip of its COMMIT (`PostgresConnection.sendWithCommit`).
    public static func add<Payload: Codable & Sendable>(_ event: CloudEvent<Payload>, routingKey: String,
                                                        on connection: PostgresConnection) async throws {
        var event = event
        if let message = MessageContext.current {
            event.correlationid = event.correlationid ?? message.correlationId
            event.causationid = event.causationid ?? message.messageId
        }
        if event.traceparent == nil, let trace = TraceContext.current { event.traceparent = trace.child().traceparent }
        // The messages' own coder, cheaper than Foundation's; the column is jsonb, which keeps the
        // value, not the text.
        let payload = String(decoding: try JSONValueEncoder().encode(event), as: UTF8.self)
        try await add(json: payload, id: event.id, type: event.type, routingKey: routingKey, on: connection)
    }

    /// The same for an event already written as JSON (`id` is its id, `type` the message's type), for a caller that
    /// makes its text itself. With this process's relay running over the connection's database, the writer hands
    /// the event to the broker itself the moment its transaction commits (`OutboxLane`); else the relay is woken.
    public static func add(json: String, id: String, type: String, routingKey: String,
                           on connection: PostgresConnection) async throws {
        // Nothing in the transaction reads the row back: it goes with COMMIT, in its round trip.
        guard let lane = OutboxLanes.shared.lane(for: connection.poolID) else {
            try await connection.sendWithCommit(PostgresStatement(
                "INSERT INTO outbox (event_id, routing_key, payload) VALUES ($1::uuid, $2, $3::jsonb)", [id, routingKey, json]))
            return wakeRelay(afterCommitOf: connection)
        }
        try await connection.sendWithCommit(PostgresStatement(
            "INSERT INTO outbox (event_id, routing_key, payload, claimed_until) VALUES ($1::uuid, $2, $3::jsonb, now() + $4::interval)",
            [id, routingKey, json, OutboxLane.claim]))
        let event = EventPublisher.EncodedEvent(id: id, type: type, routingKey: routingKey, body: Array(json.utf8))
        connection.afterCommit { lane.send(event) }
    }

    /// Has this process's relay publish once the transaction under way on `connection` commits: for a caller that
    /// adds its events with its own statement (`addAllSQL`). `add` does it by itself.
    public static func wakeRelay(afterCommitOf connection: PostgresConnection) {
        let wake = OutboxWakes.shared.wake(for: connection.poolID)
        connection.afterCommit { wake.signal() }
    }

    /// The same for a batch of events already written as JSON, as the last part of a caller's own statement
    /// (the votes ledger adds the events of a round in the statement that marks its ballots): `ids`, `routingKeys`
    /// and `payloads` name its array parameters (`$12::uuid[]`, ...), in the order the events are to leave, only
    /// the ids `onlyIds` (a subquery) returns are added, and `claim` names the parameter taking `BatchExit.claim`
    /// (`$16::interval`). The statement returns the `event_id` of each row added, for `BatchExit.send`.
    public static func addAllSQL(ids: String, routingKeys: String, payloads: String, onlyIds: String,
                                 claim: String) -> String {
        """
        INSERT INTO outbox (event_id, routing_key, payload, claimed_until)
        SELECT e.id, e.key, e.payload, now() + \(claim)
        FROM unnest(\(ids), \(routingKeys), \(payloads)) WITH ORDINALITY AS e(id, key, payload, n)
        WHERE e.id IN (\(onlyIds)) ORDER BY e.n
        RETURNING event_id::text AS event_id
        """
    }

    /// How the events a caller adds with `addAllSQL` leave once their transaction commits: handed to the broker by
    /// this process (`OutboxLane`), as `add` does, their rows claimed meanwhile; or, without a lane, by the relay,
    /// woken by the commit. Made before the statement, so that the claim and the way out agree.
    public struct BatchExit: Sendable {
        private let lane: OutboxLane?

        public init(pool: PostgresPool) { lane = OutboxLanes.shared.lane(for: pool.id) }

        /// The value for `addAllSQL`'s `claim` parameter: none (NULL) leaves the rows to the relay at once.
        public var claim: String? { lane == nil ? nil : OutboxLane.claim }

        /// `events` are those of the statement, in order; only those whose ids it returned (`added`) leave (or, sent
        /// early, have their rows marked once confirmed).
        public func send(_ events: [EventPublisher.EncodedEvent], added: Set<String>,
                         afterCommitOf connection: PostgresConnection) {
            guard let lane else { return Outbox.wakeRelay(afterCommitOf: connection) }
            let leaving = events.filter { added.contains($0.id.lowercased()) }
            lane.forget(events.filter { !added.contains($0.id.lowercased()) })
            guard !leaving.isEmpty else { return }
            connection.afterCommit { lane.committed(leaving) }
        }

        /// Hands `events` to the broker before the statement that adds their rows has run, for a writer whose event
        /// ids stay the same whatever happens to its transaction (`OutboxLane.sendEarly`). Without a lane they wait
        /// for the commit, as every event does. A statement that fails is to be followed by `abandon`.
        public func sendEarly(_ events: [EventPublisher.EncodedEvent]) { lane?.sendEarly(events) }

        /// The statement that was to add `events`, sent early, did not commit: they will be written later, if at all.
        public func abandon(_ events: [EventPublisher.EncodedEvent]) { lane?.forget(events) }
    }
}
