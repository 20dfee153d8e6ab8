import Runtime
import Storage

/// Deletes expired request ids, a bounded batch per statement, so a long backlog never becomes one long
/// transaction; an expired row that is still there is simply claimed again by the next write with its id.
public struct IdempotencyCleanup: Sendable {
    static let batchSize = 1_000
    static let sql = """
        DELETE FROM idempotency WHERE request_id = ANY(ARRAY(
            SELECT request_id FROM idempotency WHERE expires_at < now() ORDER BY expires_at LIMIT \(batchSize)))
        """

    let pool: PostgresPool
    let interval: Duration
    let logger: Logger

    public init(pool: PostgresPool, settings: IdempotencySettings, logger: Logger) {
        self.pool = pool
        interval = .seconds(min(60, max(1, settings.timeToLiveSeconds)))
        self.logger = logger
    }

    public var job: BackgroundJob { BackgroundJob(name: "idempotency cleanup") { await run() } }

    func run() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
                _ = try await deleteExpired()
            } catch is CancellationError {
                return
            } catch {
                logger.warning("idempotency cleanup failed", ["error": "\(error)"])
            }
        }
    }

    /// Deletes every expired row, batch by batch; the number deleted.
    public func deleteExpired() async throws -> Int {
        var total = 0
        while !Task.isCancelled {
            let deleted = try await pool.query(Self.sql).affectedRows
            total += deleted
            if deleted < Self.batchSize { break }
        }
        return total
    }
}
