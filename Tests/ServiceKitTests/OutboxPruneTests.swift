import Foundation
import Runtime
import ScratchDatabase
@testable import ServiceKit
import Storage
import Testing

/// The outbox relay's statements (deleting published events past their retention, taking a batch), on a scratch
/// database of the test stack's PostgreSQL (`PARSE_TEST_DATABASE_URL`).
@Suite(.enabled(if: ScratchDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL"))
struct OutboxPruneTests {
    static let logger = Logger(service: "servicekit-tests", level: .warning)

    @Test func deletesOnlyPublishedRowsPastTheirRetentionInBatches() async throws {
        try await Self.withScratchOutbox { pool in
            func add(_ count: Int, published: String?) async throws {
                _ = try await pool.query("""
                    INSERT INTO outbox (event_id, routing_key, payload, created_at, published_at)
                    SELECT gen_random_uuid(), 'test.event', '{}'::jsonb, now() - interval '3 days', \(published ?? "NULL")
                    FROM generate_series(1, \(count))
                    """)
            }
            try await add(2_500, published: "now() - interval '2 days'")
            try await add(3, published: "now() - interval '1 hour'")
            try await add(4, published: nil)

            #expect(try await OutboxRelay.prune(pool, olderThan: .seconds(86_400)) == 2_500)
            let left = try await pool.query(
                "SELECT count(*) FILTER (WHERE published_at IS NULL) AS pending, count(*) AS total FROM outbox")
            #expect(left.rows.first?["pending"] == "4")
            #expect(left.rows.first?["total"] == "7")
            #expect(try await OutboxRelay.prune(pool, olderThan: .seconds(86_400)) == 0)
        }
    }

    /// The relay's plans as a session makes them on an outbox whose statistics say it is empty (it is a queue: it
    /// often holds nothing but the dead rows of the events since the last vacuum), with the relay's setting.
    @Test func theRelayTakesItsBatchThroughTheIndexes() async throws {
        try await Self.withScratchOutbox { pool in
            _ = try await pool.query("ANALYZE outbox")
            for deleting in [true, false] {
                let batch = PostgresStatement(OutboxRelay.batchSQL(deleting: deleting), [200])
                let plan = try await pool.withConnection {
                    try await $0.genericPlan(of: batch, after: [OutboxRelay.indexesOnly])
                }
                #expect(plan.lines.contains { $0.contains("Index Cond: (id = ANY") }, "\(plan.text)")
                #expect(!plan.lines.contains { $0.contains("Seq Scan") || $0.contains("Join") || $0.contains("Nested Loop") },
                        "\(plan.text)")
            }
        }
    }

    /// A database of its own with the outbox table, dropped afterwards whatever happens.
    static func withScratchOutbox(_ body: (PostgresPool) async throws -> Void) async throws {
        try await ScratchDatabase.withPool("outbox", migrations: OutboxMigration.all, logger: logger, body)
    }
}
