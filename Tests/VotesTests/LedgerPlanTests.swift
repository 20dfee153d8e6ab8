import Foundation
import Runtime
import ServiceKit
import Storage
import Testing
@testable import VotesCore

/// The ledger's plans on a scratch database of the test stack's PostgreSQL (`PARSE_TEST_DATABASE_URL`), made as
/// the service makes them: generic, in sessions with the service's settings, on a ledger whose statistics say it
/// is empty (a fresh database), and kept until the ledger is next analyzed.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["PARSE_TEST_DATABASE_URL"] != nil, "needs PARSE_TEST_DATABASE_URL"))
struct LedgerPlanTests {
    static let logger = Logger(service: "votes-tests", level: .warning)

    @Test func settlingReachesEveryBallotThroughThePrimaryKey() async throws {
        let plan = try await Self.withScratchLedger { pool in
            _ = try await pool.query("ANALYZE ballots")
            let settle = PostgresStatement(BallotLedger.settleSQL, Array(repeating: "{}", count: 14) + ["pending"])
            return try await pool.withConnection { try await $0.genericPlan(of: settle) }
        }
        // The plan's nodes, each with the lines under it up to the next node; those that read ballots.
        var nodes: [[String]] = []
        for line in plan {
            if line.contains("->") || nodes.isEmpty { nodes.append([line]) } else { nodes[nodes.count - 1].append(line) }
        }
        let ballotScans = nodes.filter { $0[0].contains("Scan") && $0[0].contains(" on ballots") }
        let text = plan.joined(separator: "\n")
        #expect(ballotScans.count == 3, "\(text)")
        for scan in ballotScans {
            #expect(scan[0].contains("Index Scan using ballots_pkey"), "\(text)")
            #expect(scan.contains { $0.contains("Index Cond: (ballot_id = ANY") }, "\(text)")
        }
        #expect(!plan.contains { $0.contains("Seq Scan") || $0.contains("Hash Join") }, "\(text)")
    }

    /// A database of its own with the votes migrations applied, reached with the service's session settings, and
    /// dropped afterwards whatever happens.
    static func withScratchLedger<T: Sendable>(_ body: (PostgresPool) async throws -> T) async throws -> T {
        let base = ProcessInfo.processInfo.environment["PARSE_TEST_DATABASE_URL"] ?? ""
        let name = "ledger_" + Hex.random(byteCount: 6)
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        let url = try #require(components.string)
        try await PostgresDatabase.ensureExists(url: url, logger: logger)
        let pool = PostgresPool(configuration: PostgresConfiguration(url: url, poolSize: 1,
                                                                     settings: VotesService.databaseSettings),
                                logger: logger)
        let result: Result<T, any Error>
        do {
            _ = try await Migrator.migrate(VotesMigrations.all, on: pool, logger: logger)
            result = .success(try await body(pool))
        } catch {
            result = .failure(error)
        }
        await pool.close()
        if let admin = try? await PostgresConnection.connect(url: base) {
            _ = try? await admin.query("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
            await admin.close()
        }
        return try result.get()
    }
}
