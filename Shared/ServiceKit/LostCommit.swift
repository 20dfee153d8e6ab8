import Messaging
import Runtime
import Storage

/// Learns whether a transaction whose connection was lost during its COMMIT committed, from its transaction id
/// (`txid_status`), once the database answers again: a write cut off by a restart is then answered as it turned out
/// (its answer, or run again when it was rolled back) instead of "may have been applied".
///
/// It waits past the request's deadline, since only the database can tell; before that deadline passes it gives
/// the caller 503 with `Retry-After` (`EarlyAnswer`), which is safe because the write is idempotent: the retry
/// finds the claim and waits for the answer stored once the outcome is known.
struct LostCommit: Sendable {
    /// How long to wait for the database to answer before the outcome is left unknown.
    static let patience = Duration.seconds(30)

    let pool: PostgresPool
    let logger: Logger

    /// True when it committed, false when it was rolled back, nil when the database did not tell in time.
    func outcome(transactionId: String) async -> Bool? {
        let caller = Deadline.current
        let giveUp = Deadline.after(Self.patience)
        logger.warning("connection lost during COMMIT; asking the database whether it committed",
                       ["txid": transactionId])
        return await Deadline.$current.withValue(nil) {
            var pause = TransientRetry.firstPause
            while !giveUp.hasPassed && !Task.isCancelled {
                do {
                    // Not from the pool: the transaction asking still holds its connection, and when every
                    // connection is held by one (a database failover cuts them all at once), none would come.
                    let row = try await pool.queryOnOwnConnection("SELECT txid_status($1::bigint) AS status",
                                                                  [transactionId]).first
                    switch row?["status"] {
                    case "committed": return true
                    case "aborted": return false
                    case "in progress": break
                    default: return nil
                    }
                } catch where FailureKind.of(error) == .transient {
                } catch {
                    logger.error("the outcome of a lost COMMIT could not be read", ["txid": transactionId, "error": "\(error)"])
                    return nil
                }
                if let caller, caller.remaining <= pause + TransientRetry.firstPause { EarlyAnswer.current?.retryLater() }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, TransientRetry.longestPause)
            }
            logger.error("the outcome of a lost COMMIT is still unknown", ["txid": transactionId])
            return nil
        }
    }
}
