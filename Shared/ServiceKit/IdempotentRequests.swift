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
/// so its retry runs afresh. A write whose COMMIT lost its connection learns whether it committed from the claim's
/// transaction id (`LostCommit`), so it is answered as it turned out rather than "may have been applied".
public struct IdempotentRequests: Sendable {
    static let claimSQL = """
        INSERT INTO idempotency (request_id, expires_at) VALUES ($1, now() + $2::int * interval '1 second')
        ON CONFLICT (request_id) DO UPDATE SET claimed_at = now(), expires_at = EXCLUDED.expires_at, answer = NULL
            WHERE idempotency.expires_at < now()
        RETURNING txid_current()::text AS txid
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
        return try await once(command.requestId, body)
    }

    /// Runs `body`, a write, once per `key`: a later call with the same key gets the first one's answer.
    /// `answers`: where the answer is kept until the caller stores it with others (`store`), rather than
    /// stored at once; a batch of writes then costs one statement for all their answers.
    public func once(_ key: String, answers: PendingAnswers? = nil,
                     _ body: @Sendable () async throws -> RESTResponse) async throws -> RESTResponse {
        let duplicate = Mutex(false)
        let transactionId = Mutex<String?>(nil)
        let claim = TransactionPreamble(PostgresStatement(Self.claimSQL, [key, settings.timeToLiveSeconds]), check: { result in
            guard let txid = result.first?["txid"] else {
                duplicate.withLock { $0 = true }
                throw DuplicateClaim()
            }
            transactionId.withLock { $0 = txid }
        }, outcomeOfLostCommit: { [pool, logger] in
            guard let txid = transactionId.withLock({ $0 }) else { return nil }
            return await LostCommit(pool: pool, logger: logger).outcome(transactionId: txid)
        })
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
            let kept = answers ?? PendingAnswers()
            kept.add(key, StoredAnswer(outcome).text)
            if answers == nil { await store(kept) }
        }
        return try outcome.get()
    }

    /// The answers kept for those of `keys` that have one: what a retried batch gives the writes it made before,
    /// in one statement, without running them again.
    public func storedAnswers(_ keys: [String]) async throws -> [String: Result<RESTResponse, ParseError>] {
        guard !keys.isEmpty else { return [:] }
        let rows = try await pool.query("""
            SELECT request_id, answer FROM idempotency
            WHERE request_id = ANY($1::text[]) AND expires_at > now() AND answer IS NOT NULL
            """, [PostgresArray.literal(keys)])
        var answers: [String: Result<RESTResponse, ParseError>] = [:]
        for row in rows.rows {
            if let key = row["request_id"], let answer = row["answer"].flatMap(StoredAnswer.init(text:)) {
                answers[key] = answer.outcome
            }
        }
        return answers
    }

    /// Stores the answers `once` kept in `answers`, in one statement. Whatever the request's deadline says: the writes
    /// they answer are committed. Without waiting for the WAL flush: the claims, which keep the writes from being
    /// applied twice, were flushed with them; a PostgreSQL crash in the next moment costs only the replay. An answer
    /// that cannot be stored (PostgreSQL gone right after the commit) is logged and dropped, never the answer to
    /// the client: its retry then gets 159, as after a crash.
    public func store(_ answers: PendingAnswers) async {
        let taken = answers.take()
        guard !taken.isEmpty else { return }
        do {
            _ = try await Deadline.$current.withValue(nil) {
                try await pool.withConnection { connection in
                    try await connection.pipeline([
                        PostgresStatement("BEGIN"), PostgresStatement("SET LOCAL synchronous_commit TO off"),
                        PostgresStatement("""
                            UPDATE idempotency SET answer = kept.answer
                            FROM unnest($1::text[], $2::text[]) AS kept(request_id, answer)
                            WHERE idempotency.request_id = kept.request_id
                            """, [PostgresArray.literal(taken.map(\.key)), PostgresArray.literal(taken.map(\.answer))]),
                        PostgresStatement("COMMIT"),
                    ])
                }
            }
        } catch {
            logger.warning("answers of committed writes not stored; their retries will get 159",
                           ["request.ids": taken.map(\.key).joined(separator: ","), "error": "\(error)"])
        }
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

/// Answers of committed writes waiting to be stored together (`IdempotentRequests.store`).
public final class PendingAnswers: Sendable {
    private let kept = Mutex<[(key: String, answer: String)]>([])

    public init() {}

    public var count: Int { kept.withLock { $0.count } }

    func add(_ key: String, _ answer: String) { kept.withLock { $0.append((key, answer)) } }

    func take() -> [(key: String, answer: String)] {
        kept.withLock { taken in
            defer { taken.removeAll() }
            return taken
        }
    }
}
