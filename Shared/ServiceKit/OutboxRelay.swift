import Foundation
import Messaging
import Runtime
import Storage

/// Publishes committed outbox rows to the events exchange with publisher confirms, a batch at a time, and marks
/// them published only after the broker confirmed them: at-least-once, never lost. Rows its own process's writers
/// published themselves (`OutboxLane`) it only marks. Replicas share the work
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
    /// The longest wait between two reads of the table: the safety net for rows this process's writers did not
    /// publish themselves.
    private let poll: Duration
    /// Whether the rows the writers published are marked as soon as their events are confirmed, or at the poll only:
    /// an app's relay among many marks a second's rows in one statement rather than one or two at each confirm,
    /// which cost the database a transaction per create (the rows stay claimed meanwhile).
    private let marksAtConfirm: Bool

    /// Takes (marks published, or deletes) the next `$1` unpublished rows and returns them.
    static func batchSQL(deleting: Bool) -> String {
        // A row claimed by its writer (`OutboxLane`) is left to it until the claim runs out.
        let next = """
            SELECT id FROM outbox WHERE published_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
            ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
            """
        return """
            \(deleting ? "DELETE FROM outbox AS o" : "UPDATE outbox AS o SET published_at = now()")
            WHERE o.id = ANY(ARRAY(\(next)))
            RETURNING o.id, o.event_id::text AS event_id, o.routing_key, o.payload::text AS payload,
                o.payload->>'type' AS type
            """
    }

    /// For the relay's transaction: no sequential scan of the outbox (see `relayBatch`).
    static let indexesOnly = PostgresStatement("SELECT set_config('enable_seqscan', 'off', true)")

    /// For a mark's transaction: its commit does not wait for the disk (see `mark`).
    static let asynchronousCommit = PostgresStatement("SELECT set_config('synchronous_commit', 'off', true)")

    /// The least time from one batch's start to the next one's, when a commit wakes the relay.
    static let minimumGap = Duration.milliseconds(5)

    /// Rows deleted per statement, and the pause between two rounds of deletion.
    static let pruneBatch = 1_000
    static let pruneInterval = Duration.seconds(60)

    public init(pool: PostgresPool, publisher: any EventSink, logger: Logger, batchSize: Int = 200,
         retention: Duration = .seconds(86_400), poll: Duration = .milliseconds(100), marksAtConfirm: Bool = true) {
        self.poll = poll
        self.marksAtConfirm = marksAtConfirm
        self.pool = pool
        self.publisher = publisher
        self.logger = logger
        self.batchSize = batchSize
        self.retention = retention
    }

    /// Runs until the task is cancelled. With a sink that takes events at once, the process's writers publish their
    /// own events as they commit (`OutboxLane`) and the relay marks the rows the broker confirmed; it reads the table
    /// for rows only when told some were written without the lane (`OutboxWake.rowsGeneration`), and at every poll,
    /// for what another process left.
    public func run() async {
        let wake = OutboxWakes.shared.wake(for: pool.id)
        let lane = (publisher as? any ImmediateEventSink).map { OutboxLane(sink: $0, wake: marksAtConfirm ? wake : nil) }
        if let lane { OutboxLanes.shared.open(lane, for: pool.id) }
        let clock = ContinuousClock()
        var lastPrune = clock.now
        var rowsRead: UInt64?
        var polled = true
        while !Task.isCancelled {
            let roundStarted = clock.now
            if let lane { await mark(lane) }
            let rows = wake.rowsGeneration
            if lane == nil || polled || rows != rowsRead {
                rowsRead = rows
                // A full batch may have left more: read again at once.
                if await publishBatch() == batchSize { continue }
                if retention > .zero, clock.now - lastPrune >= Self.pruneInterval {
                    lastPrune = clock.now
                    await prune()
                }
            }
            // Woken soon after the last round began, it waits for the rest of `minimumGap`: under a stream of
            // commits, one round for many of them costs the publisher and the database far less than one each, for
            // a delay far below the poll's. A round after a quiet moment starts at once.
            polled = !(await wake.wait(atMost: poll))
            if !polled { try? await Task.sleep(until: roundStarted + Self.minimumGap) }
        }
        if let lane {
            OutboxLanes.shared.close(for: pool.id)
            await mark(lane)
        }
        OutboxWakes.shared.remove(for: pool.id)
    }

    /// One batch of rows read and published; how many.
    private func publishBatch() async -> Int {
        do {
            return try await relayBatch()
        } catch {
            logger.warning("outbox relay could not publish; retrying", ["error": "\(error)"])
            try? await Task.sleep(for: .seconds(1))
            return 0
        }
    }

    private func prune() async {
        do {
            let deleted = try await Self.prune(pool, olderThan: retention)
            if deleted > 0 { logger.info("outbox: deleted published events past their retention", ["rows": "\(deleted)"]) }
        } catch {
            logger.warning("outbox relay could not delete old published events", ["error": "\(error)"])
        }
    }

    /// Marks published (or deletes) the rows of the events the lane's broker confirmed. A mark that fails is tried
    /// again next round; until it succeeds the rows stay claimed, and past their claim a relay publishes them again.
    func mark(_ lane: OutboxLane) async {
        let ids = lane.takeConfirmed()
        guard !ids.isEmpty else { return }
        let mark = PostgresStatement(Self.markSQL(deleting: retention == .zero), ["{" + ids.joined(separator: ",") + "}"])
        do {
            // Not worth waiting for the disk: a mark lost with a crash leaves its rows claimed, and past the claim a
            // relay publishes them again, which consumers dedupe as every redelivery. Without the wait a mark costs
            // the database little more than the statement, however many apps (databases) mark their rows apart.
            _ = try await pool.withConnection { connection in
                try await connection.pipeline([PostgresStatement("BEGIN"), Self.asynchronousCommit, mark, PostgresStatement("COMMIT")])
            }
        } catch {
            logger.warning("outbox relay could not mark published events; retrying", ["error": "\(error)"])
            lane.giveBack(ids)
        }
    }

    /// Marks published (or deletes) the rows of the events `$1` (a uuid array) that are not yet.
    static func markSQL(deleting: Bool) -> String {
        deleting
            ? "DELETE FROM outbox WHERE event_id = ANY($1::uuid[]) AND published_at IS NULL"
            : "UPDATE outbox SET published_at = now(), claimed_until = NULL WHERE event_id = ANY($1::uuid[]) AND published_at IS NULL"
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
