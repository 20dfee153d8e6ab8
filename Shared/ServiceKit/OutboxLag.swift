import Metrics
import Storage

/// How far the outbox relay is behind: the rows not yet confirmed by the broker and the age of the oldest. Read
/// through the `outbox_unpublished` partial index, so it costs no more than the relay's own poll.
public struct OutboxLag: Sendable, Equatable {
    public var pending: Int
    public var oldestAgeSeconds: Double

    static let sql = """
        SELECT count(*) AS pending,
               COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS oldest
        FROM outbox WHERE published_at IS NULL
        """

    public static func read(_ pool: PostgresPool) async throws -> OutboxLag {
        let row = try await pool.query(sql).rows.first
        return OutboxLag(pending: Int(row?["pending"] ?? "") ?? 0, oldestAgeSeconds: max(0, Double(row?["oldest"] ?? "") ?? 0))
    }

    static let pendingGauge = MetricsRegistry.shared.gauge(
        "parse_outbox_pending", help: "Events in the service's outbox not yet confirmed by RabbitMQ.").labels()
    static let ageGauge = MetricsRegistry.shared.gauge(
        "parse_outbox_oldest_age_seconds",
        help: "Age of the oldest event in the outbox not yet confirmed by RabbitMQ (0 when none waits).").labels()

    /// Keeps the two gauges current while the service runs (a background job).
    static func sampler(_ pool: PostgresPool, every interval: Duration = .seconds(2)) -> BackgroundJob {
        BackgroundJob(name: "outbox lag") {
            while !Task.isCancelled {
                if let lag = try? await read(pool) {
                    pendingGauge.set(Double(lag.pending))
                    ageGauge.set(lag.oldestAgeSeconds)
                }
                (try? await DatabaseReplication.read(pool))?.record()
                try? await Task.sleep(for: interval)
            }
        }
    }
}
