import Contracts
import Foundation
import ParseWire
import Runtime
import ScratchDatabase
@testable import ServiceKit
import Storage
import Synchronization
import Testing

/// `IdempotentRequests` over a scratch database: the claim commits with the write it stands for, a retry gets the
/// first answer, a racing retry waits for the first attempt, and expired ids are deleted in batches.
@Suite(.enabled(if: ScratchDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL"))
struct IdempotentRequestsTests {
    static let logger = Logger(service: "servicekit-tests", level: .warning)
    static let writes = Migration(version: 2, name: "writes", sql: "CREATE TABLE writes (n int NOT NULL)")

    static func withRequests(_ settings: IdempotencySettings = IdempotencySettings(),
                             _ body: (PostgresPool, IdempotentRequests) async throws -> Void) async throws {
        try await ScratchDatabase.withPool("idempotency", migrations: [IdempotencyMigration.migration(version: 1), writes],
                                           poolSize: 4, logger: logger) { pool in
            try await body(pool, IdempotentRequests(pool: pool, settings: settings, logger: logger))
        }
    }

    static func command(_ requestId: String, idempotent: Bool = true) -> Command<RESTRequest> {
        Command(type: RESTRequest.type, requestId: requestId, identity: Identity(),
                payload: RESTRequest(method: "POST", path: "classes/C", query: [:], body: "{}",
                                     serverURL: "http://x/parse", idempotent: idempotent))
    }

    /// A write: one row in its own transaction, answered with the number of rows.
    static func write(_ pool: PostgresPool, pause: Duration = .zero) async throws -> RESTResponse {
        let rows = try await pool.transaction { connection in
            _ = try await connection.query("INSERT INTO writes (n) VALUES (1)")
            if pause > .zero { try await Task.sleep(for: pause) }
            return try await connection.query("SELECT count(*) AS c FROM writes").first?.int("c") ?? -1
        }
        return RESTResponse(status: 201, body: #"{"rows":\#(rows)}"#)
    }

    static func rows(_ pool: PostgresPool) async throws -> Int? {
        try await pool.query("SELECT count(*) AS c FROM writes").first?.int("c")
    }

    @Test func aRetryGetsTheFirstAnswerWithoutRunningAgain() async throws {
        try await Self.withRequests { pool, requests in
            let first = try await requests.handle(Self.command("a")) { try await Self.write(pool) }
            let retry = try await requests.handle(Self.command("a")) { try await Self.write(pool) }
            #expect(first.body == #"{"rows":1}"#)
            #expect(retry == first)
            #expect(try await Self.rows(pool) == 1)
            _ = try await requests.handle(Self.command("b")) { try await Self.write(pool) }
            _ = try await requests.handle(Self.command("c", idempotent: false)) { try await Self.write(pool) }
            _ = try await requests.handle(Self.command("c", idempotent: false)) { try await Self.write(pool) }
            #expect(try await Self.rows(pool) == 4)
        }
    }

    @Test func aRacingRetryWaitsForTheFirstAttemptAndGetsItsAnswer() async throws {
        try await Self.withRequests { pool, requests in
            async let first = requests.handle(Self.command("race")) { try await Self.write(pool, pause: .milliseconds(300)) }
            async let second = requests.handle(Self.command("race")) { try await Self.write(pool, pause: .milliseconds(300)) }
            let (a, b) = try await (first, second)
            #expect(a == b)
            #expect(try await Self.rows(pool) == 1)
        }
    }

    @Test func aFailureAfterTheCommitIsTheAnswerAndOneBeforeItLeavesNoClaim() async throws {
        try await Self.withRequests { pool, requests in
            let committedThenRefused: @Sendable () async throws -> RESTResponse = {
                _ = try await Self.write(pool)
                throw ParseError(.objectNotFound, "Object not found.")
            }
            for _ in 0..<2 {
                await #expect(throws: ParseError(.objectNotFound, "Object not found.")) {
                    try await requests.handle(Self.command("after"), committedThenRefused)
                }
            }
            let afterRows = try await Self.rows(pool)
            #expect(afterRows == 1)

            let runs = Mutex(0)
            let refusedInside: @Sendable () async throws -> RESTResponse = {
                runs.withLock { $0 += 1 }
                return try await pool.transaction { connection in
                    _ = try await connection.query("INSERT INTO writes (n) VALUES (2)")
                    throw ParseError(.invalidJSON, "no")
                }
            }
            for _ in 0..<2 {
                await #expect(throws: ParseError.self) { try await requests.handle(Self.command("before"), refusedInside) }
            }
            #expect(runs.withLock { $0 } == 2)
            let beforeRows = try await Self.rows(pool)
            #expect(beforeRows == 1)
        }
    }

    /// A signup retried finds its own user's name taken before it writes anything: the first answer wins.
    @Test func aRetryRefusedBeforeItsTransactionGetsTheFirstAnswer() async throws {
        try await Self.withRequests { pool, requests in
            let first = try await requests.handle(Self.command("early")) { try await Self.write(pool) }
            let retry = try await requests.handle(Self.command("early")) {
                throw ParseError(.usernameTaken, "Account already exists for this username.")
            }
            #expect(retry == first)
            await #expect(throws: ParseError(.usernameTaken, "Account already exists for this username.")) {
                try await requests.handle(Self.command("other")) {
                    throw ParseError(.usernameTaken, "Account already exists for this username.")
                }
            }
        }
    }

    @Test func rejectsARetryWith159WhenAsked() async throws {
        try await Self.withRequests(IdempotencySettings(duplicates: .reject)) { pool, requests in
            _ = try await requests.handle(Self.command("r")) { try await Self.write(pool) }
            await #expect(throws: ParseError(.duplicateRequest, "Duplicate request")) {
                try await requests.handle(Self.command("r")) { try await Self.write(pool) }
            }
            #expect(try await Self.rows(pool) == 1)
        }
    }

    @Test func anExpiredIdIsClaimedAgainAndCleanedUpInBatches() async throws {
        try await Self.withRequests(IdempotencySettings(timeToLiveSeconds: 1)) { pool, requests in
            _ = try await requests.handle(Self.command("old")) { try await Self.write(pool) }
            _ = try await pool.query("UPDATE idempotency SET expires_at = now() - interval '1 second'")
            let again = try await requests.handle(Self.command("old")) { try await Self.write(pool) }
            #expect(again.body == #"{"rows":2}"#)

            _ = try await pool.query("""
                INSERT INTO idempotency (request_id, expires_at, answer)
                SELECT 'expired-' || i, now() - interval '1 minute', '{}' FROM generate_series(1, 2500) AS i
                """)
            let cleanup = IdempotencyCleanup(pool: pool, settings: IdempotencySettings(), logger: Self.logger)
            #expect(try await cleanup.deleteExpired() == 2_500)
            #expect(try await pool.query("SELECT request_id FROM idempotency").rows.map { $0["request_id"] } == ["old"])
        }
    }

    /// The first COMMIT on `writes` ends its own session from a deferred trigger, as a database shutting down in the
    /// middle of a COMMIT does: the connection is lost and the transaction rolled back.
    static let cutFirstCommit = [
        "CREATE SEQUENCE commits_cut",
        """
        CREATE FUNCTION cut_first_commit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF nextval('commits_cut') = 1 THEN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); END IF;
            RETURN NULL;
        END $$
        """,
        """
        CREATE CONSTRAINT TRIGGER cut_first_commit AFTER INSERT ON writes DEFERRABLE INITIALLY DEFERRED
            FOR EACH ROW EXECUTE FUNCTION cut_first_commit()
        """,
    ]

    @Test func aWriteWhoseCommitLostItsConnectionAndRolledBackIsAFaultToRetryNotAnUnknownOutcome() async throws {
        try await Self.withRequests { pool, requests in
            for statement in Self.cutFirstCommit { _ = try await pool.query(statement) }
            let lost = await #expect(throws: PostgresError.self) {
                try await requests.handle(Self.command("cut")) { try await Self.write(pool) }
            }
            #expect(lost?.isConnectionFailure == true && FailureKind.of(lost!) == .transient, "\(String(describing: lost))")
            #expect(try await Self.rows(pool) == 0)
            // No claim was left: the retry runs.
            let retry = try await requests.handle(Self.command("cut")) { try await Self.write(pool) }
            #expect(retry.body == #"{"rows":1}"#)
        }
    }

    @Test func aLostCommitIsAskedOfTheDatabaseByItsTransactionId() async throws {
        try await Self.withRequests { pool, _ in
            let lostCommit = LostCommit(pool: pool, logger: Self.logger)
            let committed = try await pool.transaction { try await $0.query("SELECT txid_current()::text AS t").first?["t"] }
            #expect(await lostCommit.outcome(transactionId: try #require(committed)) == true)
            let rolledBack = Mutex<String?>(nil)
            _ = try? await pool.transaction { connection in
                let txid = try await connection.query("SELECT txid_current()::text AS t").first?["t"]
                rolledBack.withLock { $0 = txid }
                throw ExpectedRollback()
            }
            #expect(await lostCommit.outcome(transactionId: try #require(rolledBack.withLock { $0 })) == false)
        }
    }
}

private struct ExpectedRollback: Error {}
