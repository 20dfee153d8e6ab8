import Runtime
import ScratchDatabase
import Storage
import Testing
@testable import VotesCore

/// The ledger's plans on a scratch database of the test stack's PostgreSQL (`PARSE_TEST_DATABASE_URL`), made as
/// the service makes them: generic, in sessions with the service's settings, on a ledger whose statistics say it
/// is empty (a fresh database), and kept until the ledger is next analyzed.
@Suite(.enabled(if: ScratchDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL"))
struct LedgerPlanTests {
    static let logger = Logger(service: "votes-tests", level: .warning)

    @Test func settlingReachesEveryBallotThroughThePrimaryKey() async throws {
        let plan = try await ScratchDatabase.withPool("ledger", migrations: VotesMigrations.all,
                                                      settings: VotesService.databaseSettings, logger: Self.logger) { pool in
            _ = try await pool.query("ANALYZE ballots")
            let settle = PostgresStatement(BallotLedger.settleSQL, Array(repeating: "{}", count: 14) + ["pending", nil, "{}"])
            return try await pool.withConnection { try await $0.genericPlan(of: settle) }
        }
        let ballotScans = plan.nodes.filter { $0[0].contains("Scan") && $0[0].contains(" on ballots") }
        #expect(ballotScans.count == 3, "\(plan.text)")
        for scan in ballotScans {
            #expect(scan[0].contains("Index Scan using ballots_pkey"), "\(plan.text)")
            #expect(scan.contains { $0.contains("Index Cond: (ballot_id = ANY") }, "\(plan.text)")
        }
        #expect(!plan.lines.contains { $0.contains("Seq Scan") || $0.contains("Hash Join") }, "\(plan.text)")
    }
}
