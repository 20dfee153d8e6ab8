import Foundation
import Messaging
import Runtime
import Storage

/// Publishes committed outbox rows to the events exchange with publisher confirms, a batch at a time, and marks
/// them published only after the broker confirmed them: at-least-once, never lost. Replicas share the work
/// (`FOR UPDATE SKIP LOCKED`); consumers dedupe by event id. Published rows are kept for `retention` (to look
/// at what was sent), then deleted while the relay has nothing to publish, so the table does not grow with
/// every event ever written. With no retention a row is deleted as it is confirmed, which costs PostgreSQL far
/// less than marking it: the mark writes the whole row again with its index entries (the `outbox_unpublished`
/// index makes it a non-HOT update).
public final class OutboxRelay: Sendable {
    private let pool: PostgresPool
    private let publisher: any EventSink
    private let logger: Logger
    private let batchSize: Int
    private let retention: Duration

    /// Takes (marks published, or deletes) the next `$1` unpublished rows and returns them.
    static func batchSQL(deleting: Bool) -> String {
        let next = "SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED"
        return """
            \(deleting ? "DELETE FROM outbox AS o" : "UPDATE outbox AS o SET published_at = now()")
            WHERE o.id = ANY(ARRAY(\(next)))
            RETURNING o.id, o.event_id::text AS event_id, o.routing_key, o.payload::text AS payload,
                o.payload->>'type' AS type
            """
    }

    /// For the relay's transaction: no sequential scan of the outbox (see `relayBatch`).
    static let indexesOnly = PostgresStatement("SELECT set_config('enable_seqscan', 'off', true)")

    /// The least time from one batch's start to the next one's, when a commit wakes the relay.
    static let minimumGap = Duration.milliseconds(5)

    /// Rows deleted per statement, and the pause between two rounds of deletion.
    static let pruneBatch = 1_000
    static let pruneInterval = Duration.seconds(60)

    public init(pool: PostgresPool, publisher: any EventSink, logger: Logger, batchSize: Int = 200,
         retention: Duration = .seconds(86_400)) {
        self.pool = pool
        self.publisher = publisher
        self.logger = logger
        self.batchSize = batchSize
        self.retention = retention
    }

    /// Runs until the task is cancelled.
    public func run() async {
        let clock = ContinuousClock()
        var lastPrune = clock.now
        while !Task.isCancelled {
            let batchStarted = clock.now
            let published: Int
            do {
                published = try await relayBatch()
            } catch {
                logger.warning("outbox relay could not publish; retrying", ["error": "\(error)"])
                published = 0
                try? await Task.sleep(for: .seconds(1))
            }
            // A batch that was not full took every row committed before it: the rows committed since have woken
            // the relay again (`OutboxWake`), so looking at once would mostly find nothing, for a statement.
            guard published < batchSize else { continue }
            if retention > .zero, clock.now - lastPrune >= Self.pruneInterval {
                lastPrune = clock.now
                do {
                    let deleted = try await Self.prune(pool, olderThan: retention)
                    if deleted > 0 { logger.info("outbox: deleted published events past their retention", ["rows": "\(deleted)"]) }
                } catch {
                    logger.warning("outbox relay could not delete old published events", ["error": "\(error)"])
                }
            }
            // Woken by a commit soon after the last batch began, it waits for the rest of `minimumGap`: under a
            // stream of commits, one batch for many of them costs the publisher and the database far less than
            // one each, for a delay far below the poll's. An event after a quiet moment leaves at once.
            if await OutboxWake.shared.wait(atMost: .milliseconds(100)) {
                try? await Task.sleep(until: batchStarted + Self.minimumGap)
            }
        }
    }

    /// Deletes the rows published longer than `age` ago, at most `pruneBatch` per statement and ten statements a
    /// round; answers how many. Rows are published in id order, so the old ones are those with the lowest ids: each
    /// statement looks at the first `pruneBatch` rows only, and a round stops at the first statement that finds
    /// fewer than that to delete. (Filtering the whole table on `published_at` read every row kept, a day of
    /// events, once a minute.) Rows not yet published are never touched.
    static func prune(_ pool: PostgresPool, olderThan age: Duration) async throws -> Int {
        let seconds = Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18
        var deleted = 0
        for _ in 0..<10 {
            let result = try await pool.query("""
                DELETE FROM outbox WHERE id IN (
                    SELECT id FROM (SELECT id, published_at FROM outbox ORDER BY id LIMIT \(pruneBatch)) AS head
                    WHERE published_at < now() - make_interval(secs => $1))
                """, [seconds])
            deleted += result.affectedRows
            if result.affectedRows < pruneBatch { break }
        }
        return deleted
    }

    /// One batch in one transaction and one statement: the rows are marked published (or deleted) as they are
    /// read, and the change commits only once the broker has confirmed them. Until then the rows stay locked, so no
    /// other relay sends them too; a publish that fails rolls the change back. (Reading the rows `FOR UPDATE` first
    /// and marking them after cost a second statement and its round trip.)
    ///
    /// The rows are taken by id (`= ANY`) and through the indexes only: the outbox is a queue, its statistics say
    /// it is nearly empty while it holds the dead rows of every event since the last vacuum, and a plan made on
    /// them read the whole table twice per batch.
    func relayBatch() async throws -> Int {
        guard publisher.isConnected else { return 0 }
        let publisher = self.publisher
        let statement = PostgresStatement(Self.batchSQL(deleting: retention == .zero), [batchSize])
        return try await pool.withConnection { connection in
            try await connection.pipelinedTransaction { connection, opening in
                let rows = try await connection.pipeline(opening + [Self.indexesOnly, statement]).last?.rows ?? []
                guard !rows.isEmpty else { return (0, []) }
                // RETURNING follows no order: events leave in the order they were written.
                let events = rows.sorted { Int($0["id"] ?? "") ?? 0 < Int($1["id"] ?? "") ?? 0 }.map { row in
                    EventPublisher.EncodedEvent(id: row["event_id"] ?? "", type: row["type"] ?? "",
                                                routingKey: row["routing_key"] ?? "", body: Array((row["payload"] ?? "").utf8))
                }
                try await publisher.publish(encoded: events)
                return (rows.count, [])
            }
        }
    }
}
