import Contracts
import ParseWire
import Runtime
import ScratchDatabase
import Storage
import Testing
@testable import VotesCore

/// A round's one trip to the ledger, on a scratch database of the test stack's PostgreSQL: the previous round's
/// outcomes marked and the new ballots recorded in one transaction.
@Suite(.enabled(if: ScratchDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL"))
struct LedgerRoundTripTests {
    static let logger = Logger(service: "votes-tests", level: .warning)

    static func ballot(_ requestId: String, objectId: String = "cat1") -> Ballot {
        Ballot(ballotId: TimeOrderedUUID.string(), requestId: requestId, voter: .anonymous,
               vote: CastVote(className: "Cat", objectId: objectId, field: "votes", kind: .increment, value: 1))
    }

    static func states(_ pool: PostgresPool) async throws -> [String] {
        try await pool.query("SELECT request_id || ':' || state AS s FROM ballots ORDER BY request_id").rows.compactMap { $0["s"] }
    }

    @Test func oneTripMarksTheRoundBeforeAndRecordsTheNextOne() async throws {
        try await ScratchDatabase.withPool("ledger", migrations: VotesMigrations.all,
                                           settings: VotesService.databaseSettings, logger: Self.logger) { pool in
            let ledger = BallotLedger(pool: pool)
            let first = [Self.ballot("r1"), Self.ballot("r2")]
            #expect(try await ledger.record(first).isEmpty)
            #expect(try await Self.states(pool) == ["r1:pending", "r2:pending"])

            let applied = AppliedIncrements.Outcome(ballotId: first[0].ballotId, amount: 1, total: 1, sequence: 1,
                                                     updatedAt: "2026-12-01T00:00:00.000Z")
            let refused = AppliedIncrements.Outcome(ballotId: first[1].ballotId, error: ParseError(.objectNotFound, "Object not found."))
            let next = [Self.ballot("r3"), Self.ballot("r1", objectId: "cat2")]
            let existing = try await ledger.record(next, settling: .init(ballots: first, outcomes: [applied, refused]))
            #expect(try await Self.states(pool) == ["r1:applied", "r2:rejected", "r3:pending"])
            // A request id already in the ledger is not recorded again: the ballot there is returned, as marked now.
            guard case .applied(let stored, let answer)? = existing[next[1].ballotId] else {
                Issue.record("r1 should come back as applied: \(existing)")
                return
            }
            #expect(stored == first[0] && answer.total == 1)
            #expect(existing.count == 1)
            let events = try await pool.query("SELECT count(*) AS n FROM outbox").rows.first?["n"]
            #expect(events == "1")
        }
    }

    /// A client's retry and a redelivery of its first try, meeting in one round: one ballot is recorded, and the
    /// other comes back as the one recorded, so only one of them is sent to `posts`.
    @Test func twoBallotsOfOneRequestInOneRoundRecordOne() async throws {
        try await ScratchDatabase.withPool("ledger", migrations: VotesMigrations.all,
                                           settings: VotesService.databaseSettings, logger: Self.logger) { pool in
            let ledger = BallotLedger(pool: pool)
            let first = Self.ballot("r1"), retry = Self.ballot("r1")
            let existing = try await ledger.record([first, retry])
            let recorded = try await pool.query("SELECT ballot_id::text AS id FROM ballots").rows.compactMap { $0["id"] }
            #expect(recorded == [first.ballotId.lowercased()])
            #expect(existing[first.ballotId] == nil)
            guard case .pending(let stored)? = existing[retry.ballotId] else {
                Issue.record("the retry should come back as the pending ballot recorded: \(existing)")
                return
            }
            #expect(stored.ballotId.lowercased() == first.ballotId.lowercased())
        }
    }

    @Test func aRecordingThatFailsLeavesTheRoundBeforeUnmarked() async throws {
        try await ScratchDatabase.withPool("ledger", migrations: VotesMigrations.all,
                                           settings: VotesService.databaseSettings, logger: Self.logger) { pool in
            let ledger = BallotLedger(pool: pool)
            let first = [Self.ballot("r1")]
            _ = try await ledger.record(first)
            let applied = AppliedIncrements.Outcome(ballotId: first[0].ballotId, amount: 1, total: 1, sequence: 1,
                                                     updatedAt: "2026-12-01T00:00:00.000Z")
            // Two new ballots with one ballot id: the recording fails on the primary key.
            var twin = Self.ballot("r3")
            twin.ballotId = Self.ballot("r2").ballotId
            var other = Self.ballot("r2")
            other.ballotId = twin.ballotId
            await #expect(throws: PostgresError.self) {
                _ = try await ledger.record([other, twin], settling: .init(ballots: first, outcomes: [applied]))
            }
            #expect(try await Self.states(pool) == ["r1:pending"])
            let events = try await pool.query("SELECT count(*) AS n FROM outbox").rows.first?["n"]
            #expect(events == "0")
        }
    }
}
