import Foundation
import Messaging
import Runtime
import Storage

/// Publishes committed outbox rows to the events exchange with publisher confirms, a batch at a time, and marks
/// them published only after the broker confirmed them: at-least-once, never lost. Replicas share the work
/// (`FOR UPDATE SKIP LOCKED`); consumers dedupe by event id.
final class OutboxRelay: Sendable {
    private let pool: PostgresPool
    private let publisher: EventPublisher
    private let logger: Logger
    private let batchSize: Int

    init(pool: PostgresPool, publisher: EventPublisher, logger: Logger, batchSize: Int = 200) {
        self.pool = pool
        self.publisher = publisher
        self.logger = logger
        self.batchSize = batchSize
    }

    /// Runs until the task is cancelled.
    func run() async {
        while !Task.isCancelled {
            let published: Int
            do {
                published = try await relayBatch()
            } catch {
                logger.warning("outbox relay could not publish; retrying", ["error": "\(error)"])
                published = 0
                try? await Task.sleep(for: .seconds(1))
            }
            if published == 0 { try? await Task.sleep(for: .milliseconds(100)) }
        }
    }

    /// One batch in one transaction: the rows stay locked until they are marked, so no other relay sends them too.
    func relayBatch() async throws -> Int {
        guard publisher.isConnected else { return 0 }
        let publisher = self.publisher
        let limit = batchSize
        return try await pool.transaction { connection in
            let rows = try await connection.query("""
                SELECT id, event_id::text AS event_id, routing_key, payload::text AS payload,
                       payload->>'type' AS type
                FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
                """, [limit]).rows
            guard !rows.isEmpty else { return 0 }
            let events = rows.map { row in
                EventPublisher.EncodedEvent(id: row["event_id"] ?? "", type: row["type"] ?? "",
                                            routingKey: row["routing_key"] ?? "", body: Array((row["payload"] ?? "").utf8))
            }
            try await publisher.publish(encoded: events)
            let ids = "{" + rows.compactMap { $0["id"] }.joined(separator: ",") + "}"
            _ = try await connection.query("UPDATE outbox SET published_at = now() WHERE id = ANY($1::bigint[])", [ids])
            return rows.count
        }
    }
}
