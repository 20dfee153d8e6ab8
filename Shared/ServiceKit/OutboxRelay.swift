import Foundation
import Messaging
import Runtime
import Storage

/// Publishes committed outbox rows to the events exchange with publisher confirms, a batch at a time, and marks
/// them published only after the broker confirmed them: at-least-once, never lost. Replicas share the work
/// (`FOR UPDATE SKIP LOCKED`); consumers dedupe by event id. Published rows are kept for `retention` (to look
/// at what was sent), then deleted while the relay has nothing to publish, so the table does not grow with
/// every event ever written.
final class OutboxRelay: Sendable {
    private let pool: PostgresPool
    private let publisher: EventPublisher
    private let logger: Logger
    private let batchSize: Int
    private let retention: Duration

    /// Rows deleted per statement, and the pause between two rounds of deletion.
    static let pruneBatch = 1_000
    static let pruneInterval = Duration.seconds(60)

    init(pool: PostgresPool, publisher: EventPublisher, logger: Logger, batchSize: Int = 200,
         retention: Duration = .seconds(86_400)) {
        self.pool = pool
        self.publisher = publisher
        self.logger = logger
        self.batchSize = batchSize
        self.retention = retention
    }

    /// Runs until the task is cancelled.
    func run() async {
        let clock = ContinuousClock()
        var lastPrune = clock.now
        while !Task.isCancelled {
            let published: Int
            do {
                published = try await relayBatch()
            } catch {
                logger.warning("outbox relay could not publish; retrying", ["error": "\(error)"])
                published = 0
                try? await Task.sleep(for: .seconds(1))
            }
            guard published == 0 else { continue }
            if clock.now - lastPrune >= Self.pruneInterval {
                lastPrune = clock.now
                do {
                    let deleted = try await Self.prune(pool, olderThan: retention)
                    if deleted > 0 { logger.info("outbox: deleted published events past their retention", ["rows": "\(deleted)"]) }
                } catch {
                    logger.warning("outbox relay could not delete old published events", ["error": "\(error)"])
                }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Deletes the rows published longer than `age` ago, `pruneBatch` per statement, at most ten statements a
    /// round; answers how many. Old rows have the lowest ids, so each statement reads the primary key from the
    /// start and stops at its batch; rows not yet published are never touched.
    static func prune(_ pool: PostgresPool, olderThan age: Duration) async throws -> Int {
        let seconds = Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18
        var deleted = 0
        for _ in 0..<10 {
            let result = try await pool.query("""
                DELETE FROM outbox WHERE id IN (
                    SELECT id FROM outbox WHERE published_at < now() - make_interval(secs => $1) ORDER BY id LIMIT \(pruneBatch))
                """, [seconds])
            deleted += result.affectedRows
            if result.affectedRows < pruneBatch { break }
        }
        return deleted
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
