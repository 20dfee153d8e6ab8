import Contracts
import Foundation
import ParseWire
import Runtime
import Storage
import Synchronization

/// Applies each write the gateway marked idempotent once per request id. The request id is claimed by the first
/// transaction the write commits (`TransactionPreamble`), so the claim exists exactly when the write does: a crash
/// between them cannot leave a write applied without its claim, and a retry racing the first attempt waits on the
/// claim's unique key until that attempt commits or rolls back. The answer is stored just after the commit; a retry
/// gets it again (or `159` when `duplicates` is `reject`). A write that fails before committing leaves no claim,
/// so its retry runs afresh.
public struct IdempotentRequests: Sendable {
    static let claimSQL = """
        INSERT INTO idempotency (request_id, expires_at) VALUES ($1, now() + $2::int * interval '1 second')
        ON CONFLICT (request_id) DO UPDATE SET claimed_at = now(), expires_at = EXCLUDED.expires_at, answer = NULL
            WHERE idempotency.expires_at < now()
        RETURNING 1
        """
    /// How long a retry waits for the answer of a claim that committed without one yet (the first attempt is
    /// between its commit and storing the answer, or died there).
    static let answerWait = Duration.seconds(5)

    let pool: PostgresPool
    let settings: IdempotencySettings
    let logger: Logger

    public init(pool: PostgresPool, settings: IdempotencySettings, logger: Logger) {
        self.pool = pool
        self.settings = settings
        self.logger = logger
    }

    /// Runs `body` for `command`, once per request id when the gateway marked the request idempotent.
    public func handle(_ command: Command<RESTRequest>,
                       _ body: @Sendable () async throws -> RESTResponse) async throws -> RESTResponse {
        guard command.payload.idempotent == true, command.payload.method != "GET" else { return try await body() }
        let key = command.requestId
        let duplicate = Mutex(false)
        let claim = TransactionPreamble(PostgresStatement(Self.claimSQL, [key, settings.timeToLiveSeconds])) { result in
            if result.rows.isEmpty {
                duplicate.withLock { $0 = true }
                throw DuplicateClaim()
            }
        }
        let outcome: Result<RESTResponse, ParseError>
        do {
            outcome = .success(try await TransactionPreamble.$current.withValue(claim) { try await body() })
        } catch let error as ParseError where !duplicate.withLock({ $0 }) {
            guard claim.hasCommitted else {
                // A handler may refuse a retry before it writes (a signup finds its own user's name taken): the
                // first attempt's answer, if there is one, is the answer.
                guard try await stored(key) != nil else { throw error }
                return try await earlierAnswer(key)
            }
            outcome = .failure(error)
        } catch {
            guard duplicate.withLock({ $0 }) else { throw error }
            return try await earlierAnswer(key)
        }
        if duplicate.withLock({ $0 }) { return try await earlierAnswer(key) }
        if claim.hasCommitted {
            let text = StoredAnswer(outcome).text
            // Stored even when the request's deadline has just passed: the write it answers is committed. Without
            // waiting for the WAL flush: the claim, which keeps the write from being applied twice, was flushed with
            // the write; a PostgreSQL crash in the next moment costs only the replay (the retry then gets 159).
            _ = try await Deadline.$current.withValue(nil) {
                try await pool.withConnection { connection in
                    try await connection.pipeline([
                        PostgresStatement("BEGIN"), PostgresStatement("SET LOCAL synchronous_commit TO off"),
                        PostgresStatement("UPDATE idempotency SET answer = $2 WHERE request_id = $1", [key, text]),
                        PostgresStatement("COMMIT"),
                    ])
                }
            }
        }
        return try outcome.get()
    }

    /// The answer kept for `key`, nil when it has none or it expired.
    private func stored(_ key: String) async throws -> StoredAnswer? {
        let row = try await pool.query("SELECT answer FROM idempotency WHERE request_id = $1 AND expires_at > now()",
                                       [key]).first
        return row?["answer"].flatMap(StoredAnswer.init(text:))
    }

    /// The answer of the attempt that claimed `key` first.
    private func earlierAnswer(_ key: String) async throws -> RESTResponse {
        if settings.duplicates == .reject { throw ParseError(.duplicateRequest, "Duplicate request") }
        let giveUp = Deadline.after(Self.answerWait).capped(by: Deadline.current)
        while true {
            let row = try await pool.query("SELECT answer FROM idempotency WHERE request_id = $1", [key]).first
            if let text = row?["answer"], let stored = StoredAnswer(text: text) {
                return try stored.outcome.get()
            }
            guard row != nil, !giveUp.hasPassed else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        logger.warning("a retried write was applied before but its answer is not known", ["request.id": key])
        throw ParseError(.duplicateRequest, "Duplicate request")
    }
}

/// Thrown by the claim when the request id was claimed before: the transaction rolls back before the write runs.
struct DuplicateClaim: Error {}
