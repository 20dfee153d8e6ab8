import Contracts
import Foundation
import ParseWire
import Query
import Runtime
import ServiceKit
import Storage
import Synchronization

/// The background job that sends due pushes: it finds a due job that no other replica is working on, compiles the
/// push's page statement (`PushPage`) once, and runs it page after page, each page in one transaction of one round
/// trip that locks the job (replicas skip a locked one), publishes the page through the outbox and moves the cursor.
/// Pushes whose `push_time` is in the future wait in `push_jobs`, so they go out when due, also after a restart.
final class PushSender: Sendable {
    private let pool: PostgresPool
    private let logger: Logger
    private let idlePause: Duration
    /// The push being sent, compiled; nil between pushes and after a failure.
    private let current = Mutex<PushPage?>(nil)

    init(pool: PostgresPool, logger: Logger, idlePause: Duration = .milliseconds(250)) {
        self.pool = pool
        self.logger = logger
        self.idlePause = idlePause
    }

    func run() async {
        while !Task.isCancelled {
            do {
                if try await sendNextPage() { continue }
            } catch {
                current.withLock { $0 = nil }
                logger.warning("push sending failed; retrying", ["error": "\(error)"])
            }
            try? await Task.sleep(for: idlePause)
        }
    }

    /// Publishes one page of one due push; false when no push is due.
    func sendNextPage() async throws -> Bool {
        try await pool.withConnection { connection in
            let page: PushPage
            if let compiled = current.withLock({ $0 }) {
                page = compiled
            } else {
                guard let due = try await Self.nextDueJob(on: connection) else { return false }
                page = due
                current.withLock { $0 = due }
            }
            let results = try await connection.pipeline(
                [PostgresStatement("BEGIN"), PushPage.walkThePrimaryKey, page.statement()]
                    + PushStatusUpdates.completion(page.statusId) + [PostgresStatement("COMMIT")])
            guard results.last?.commandTag == "COMMIT" else {
                throw PostgresError(sqlState: "25P02",
                                    message: "the push page was rolled back because a statement in it failed")
            }
            let outcome = PushPage.outcome(results[2])
            if outcome.read > 0 { Outbox.wakeRelay(afterCommitOf: connection) }
            // Locked by another replica, or done: look for the next due job.
            if !outcome.claimed || outcome.read == 0 { current.withLock { $0 = nil } }
            return true
        }
    }

    /// The due job with the earliest `due_at` that no other replica holds, with its page statement. The row lock
    /// ends with the statement: the page statement takes it again, so this only steers replicas apart.
    private static func nextDueJob(on connection: PostgresConnection) async throws -> PushPage? {
        let claimed = try await connection.query("""
            SELECT push_status_id, request::text AS request FROM push_jobs
            WHERE state <> 'published' AND due_at <= now() ORDER BY due_at LIMIT 1 FOR UPDATE SKIP LOCKED
            """)
        guard let job = claimed.first, let statusId = job["push_status_id"],
              let request = JSONValue.parse(job["request"] ?? "")?.objectValue else { return nil }
        return try await PushPage.compile(statusId: statusId, request: request, on: connection)
    }
}
