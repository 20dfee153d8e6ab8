import Contracts
import Foundation
import ParseWire
import Storage
import Testing
@testable import PostsCore

/// A vote round's statements as posts plans them: generic plans with sequential scans off (as the round's
/// transaction sets them), made while the class, `vote_applied` and `vote_likes` look empty and kept until they are
/// next analyzed. Every table must be reached through an index condition, whatever join order the plan takes.
@Suite(.serialized, .enabled(if: PostsDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL (run with `deploy/stack test`)"))
struct CounterUpdatePlanTests {
    typealias Ballot = BallotToApply

    @Test func aRoundReachesEveryTableThroughAnIndex() async throws {
        try await PostsDatabase.withScratch { pool in
            _ = try await PostsDatabase.call(pool, "POST", "classes/PlanPhoto", #"{"likes":5}"#)
            _ = try await pool.query(#"ANALYZE classes."PlanPhoto", vote_applied, vote_likes"#)
            let like = CounterTally.Like(target: .init(objectId: "p1", field: "likes"), voter: "u1")
            var tally = CounterTally(
                schema: ClassSchema(className: "PlanPhoto"),
                rows: ["p1": .init(writers: nil, updatedAt: "2026-01-01T00:00:00.000Z", values: ["likes": 5])],
                earlier: [:], lastSequences: [:], likes: [like], updatedAt: "2026-11-30T00:00:00.000Z")
            // A new like and a retraction, so that the write adds to and deletes from `vote_likes` too.
            let group = CounterBallots(className: "PlanPhoto", objectId: "p1", field: "likes", oncePerUser: true, ballots: [
                Ballot(ballotId: UUID().uuidString, kind: .increment, value: 1, voter: Identity(userId: "u2")),
                Ballot(ballotId: UUID().uuidString, kind: .increment, value: -1, voter: Identity(userId: "u1")),
            ])
            tally.decide(group)
            let update = CounterUpdate(className: "PlanPhoto", groups: [group], schemas: SchemaCache())
            let statements = [update.earlierStatement([group]), try #require(update.write(tally))]
            for statement in statements { try await expectIndexed(statement, pool) }
        }
    }

    /// The statement's generic plan, made with the round's settings, reaches every table through an index condition.
    private func expectIndexed(_ statement: PostgresStatement, _ pool: PostgresPool) async throws {
        let plan = try await pool.withConnection {
            try await $0.genericPlan(of: statement, after: [ApplyBallotsHandler.planSettings])
        }
        let scans = plan.lines.filter { $0.contains("Scan") && !$0.contains("Function Scan") && !$0.contains("CTE Scan") }
        #expect(!scans.isEmpty, "\(plan.text)")
        #expect(!plan.lines.contains { $0.contains("Seq Scan") }, "\(plan.text)")
        // Each index scan is followed, before the next node, by its index condition.
        for node in plan.nodes where node[0].contains("Index") && node[0].contains("Scan") {
            #expect(node.contains { $0.contains("Index Cond") }, "\(plan.text)")
        }
        // The likes asked for are looked up by their whole key, not among all the class's likes.
        for node in plan.nodes where statement.sql.hasPrefix("SELECT") && node[0].contains(" on vote_likes") {
            #expect(node.contains { $0.contains("Index Cond") && $0.contains("(voter = x") }, "\(plan.text)")
        }
    }

    @Test func aRoundDecidedFromMemoryReachesEveryTableThroughAnIndex() async throws {
        try await PostsDatabase.withScratch { pool in
            _ = try await PostsDatabase.call(pool, "POST", "classes/PlanCat", #"{"votes":5}"#)
            _ = try await pool.query(#"ANALYZE classes."PlanCat", vote_applied, parse_schema"#)
            let schema = try #require(try await pool.withConnection { try await SchemaStore.load("PlanCat", on: $0) })
            let target = CounterTally.Target(objectId: "c1", field: "votes")
            var tally = CounterTally(
                schema: schema, rows: ["c1": .init(writers: ["*"], updatedAt: "", values: ["votes": 5])],
                earlier: [:], lastSequences: [target: 3], likes: [], updatedAt: "2026-11-30T00:00:00.000Z")
            let group = CounterBallots(className: "PlanCat", objectId: "c1", field: "votes", ballots: [
                Ballot(ballotId: UUID().uuidString.lowercased(), kind: .increment, value: 1, voter: .anonymous),
            ])
            tally.decide(group)
            let write = try #require(CounterUpdate(className: "PlanCat", groups: [group], schemas: SchemaCache())
                .write(tally, checkingAgainst: schema.fingerprint))
            #expect(write.sql.contains("vote_round_holds"))
            try await expectIndexed(write, pool)
        }
    }
}
