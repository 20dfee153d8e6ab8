import Contracts
import Foundation
import ParseWire
import Query
import Storage
import Testing
@testable import PostsCore

/// A vote round on counters this process applied votes to before is decided from what it remembers of them
/// (`CounterCache`) and written in one round trip, with a write that checks what it assumed. Whatever changed
/// behind it (a plain update, an ACL, class-level permissions, another replica's votes, a deleted object, a retried
/// ballot), the round answers and counts as one that read everything.
@Suite(.serialized, .enabled(if: PostsDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL (run with `deploy/stack test`)"))
struct RememberedCounterTests {
    static let className = "RememberedCat"
    /// The suite's own, as the posts service makes one at start.
    static let counters = CounterCache()
    static let schemas = SchemaCache()

    private static func ballot(_ id: String = UUID().uuidString.lowercased(), by voter: Identity = .anonymous) -> BallotToApply {
        .init(ballotId: id, kind: .increment, value: 1, voter: voter)
    }

    private static func group(_ objectId: String, _ ballots: [BallotToApply]) -> CounterBallots {
        CounterBallots(className: className, objectId: objectId, field: "votes", ballots: ballots)
    }

    private func apply(_ pool: PostgresPool, _ objectId: String, _ ballots: [BallotToApply]) async throws -> [BallotResult] {
        try await ApplyBallotsHandler(pool: pool, counters: Self.counters, schemas: Self.schemas).apply(ApplyBallots(groups: [Self.group(objectId, ballots)])).outcomes
    }

    private func remembered(_ objectId: String) -> CounterCache.Entry? {
        Self.counters.get(.init(className: Self.className, objectId: objectId, field: "votes"))
    }

    private func decidedFromMemory(_ objectId: String, _ ballots: [BallotToApply]) -> Bool {
        CounterUpdate(className: Self.className, groups: [Self.group(objectId, ballots)], schemas: Self.schemas).cachedUpdate(from: Self.counters) != nil
    }

    private func make(_ pool: PostgresPool, _ body: String = #"{"votes":5}"#) async throws -> String {
        let made = try await PostsDatabase.call(pool, "POST", "classes/\(Self.className)", body)
        return try #require(PostsDatabase.json(made)["objectId"]?.stringValue)
    }

    private func stored(_ pool: PostgresPool, _ objectId: String) async throws -> (votes: Double?, applied: Int?) {
        let votes = try await pool.query("SELECT votes FROM \(Names.table(Self.className)) WHERE \"objectId\" = $1", [objectId])
        let applied = try await pool.query("SELECT count(*) AS n FROM vote_applied WHERE object_id = $1", [objectId])
        return (votes.first?["votes"].flatMap(Double.init), applied.first?["n"].flatMap { Int($0) })
    }

    @Test func aRememberedCounterIsCountedWithoutBeingReadFirst() async throws {
        try await PostsDatabase.withScratch { pool in
            let id = try await make(pool)
            let first = try await apply(pool, id, [Self.ballot(), Self.ballot()])
            #expect(first.map(\.total) == [6, 7] && first.map(\.sequence) == [1, 2])
            #expect(remembered(id) == CounterCache.Entry(value: 7, lastSequence: 2, writers: nil))

            let next = [Self.ballot(), Self.ballot()]
            #expect(decidedFromMemory(id, next))
            let outcomes = try await apply(pool, id, next)
            #expect(outcomes.map(\.ballotId) == next.map(\.ballotId))
            #expect(outcomes.map(\.total) == [8, 9] && outcomes.map(\.sequence) == [3, 4] && outcomes.allSatisfy { $0.error == nil })
            #expect(remembered(id) == CounterCache.Entry(value: 9, lastSequence: 4, writers: nil))
            let (votes, applied) = try await stored(pool, id)
            #expect(votes == 9 && applied == 4)
        }
    }

    @Test func aCounterSetBehindTheMemoryIsReadAgain() async throws {
        try await PostsDatabase.withScratch { pool in
            let id = try await make(pool)
            _ = try await apply(pool, id, [Self.ballot()])
            _ = try await PostsDatabase.call(pool, "PUT", "classes/\(Self.className)/\(id)", #"{"votes":100}"#)
            let ballot = Self.ballot()
            #expect(decidedFromMemory(id, [ballot]))
            let outcome = try #require(try await apply(pool, id, [ballot]).first)
            #expect(outcome.total == 101 && outcome.sequence == 2)
            // Found changed: not remembered for a while, the next rounds read it.
            #expect(remembered(id) == nil)
            #expect(!decidedFromMemory(id, [Self.ballot()]))
            #expect(try await stored(pool, id).votes == 101)
        }
    }

    /// Another replica applied votes meanwhile: the total this process remembers may even be right (a vote and its
    /// retraction), but the counter's sequence moved on.
    @Test func anotherReplicasVotesKeepTheSequenceWithoutGaps() async throws {
        try await PostsDatabase.withScratch { pool in
            let id = try await make(pool)
            _ = try await apply(pool, id, [Self.ballot(), Self.ballot()])
            Self.counters.store([.init(className: Self.className, objectId: id, field: "votes"):
                                        .init(value: 7, lastSequence: 1, writers: nil)])
            let outcome = try #require(try await apply(pool, id, [Self.ballot()]).first)
            #expect(outcome.total == 8 && outcome.sequence == 3)
            #expect(remembered(id) == nil)
        }
    }

    @Test func aWriteACLTakenAwayBehindTheMemoryRefusesTheVote() async throws {
        try await PostsDatabase.withScratch { pool in
            let id = try await make(pool, #"{"votes":0,"ACL":{"*":{"read":true,"write":true}}}"#)
            #expect(try await apply(pool, id, [Self.ballot()]).first?.total == 1)
            #expect(remembered(id)?.writers == ["*"])
            _ = try await PostsDatabase.call(pool, "PUT", "classes/\(Self.className)/\(id)", #"{"ACL":{"*":{"read":true}}}"#,
                                             as: .master)
            let ballot = Self.ballot()
            #expect(decidedFromMemory(id, [ballot]))
            let outcome = try #require(try await apply(pool, id, [ballot]).first)
            #expect(outcome.error?.code == .objectNotFound && outcome.total == nil)
            #expect(try await stored(pool, id).votes == 1)
        }
    }

    @Test func classPermissionsChangedBehindTheMemoryRefuseTheVote() async throws {
        try await PostsDatabase.withScratch { pool in
            let id = try await make(pool)
            _ = try await apply(pool, id, [Self.ballot()])
            _ = try await PostsDatabase.call(pool, "PUT", "schemas/\(Self.className)", #"""
                {"className":"\#(Self.className)","classLevelPermissions":{"find":{"*":true},"get":{"*":true},"create":{"*":true},"update":{},"delete":{"*":true},"addField":{"*":true}}}
                """#, as: .master)
            let outcome = try #require(try await apply(pool, id, [Self.ballot()]).first)
            #expect(outcome.error?.code == .operationForbidden)
            #expect(try await stored(pool, id).votes == 6)
        }
    }

    /// Also when its id is spelled in upper case: the ids posts kept come back from PostgreSQL in lower case.
    @Test func aRetriedBallotGetsTheOutcomeItHadAndCountsOnce() async throws {
        try await PostsDatabase.withScratch { pool in
            let id = try await make(pool)
            let retried = Self.ballot(UUID().uuidString.uppercased())
            _ = try await apply(pool, id, [retried])
            _ = try await apply(pool, id, [Self.ballot()])
            #expect(decidedFromMemory(id, [retried]))
            let outcome = try #require(try await apply(pool, id, [retried]).first)
            #expect(outcome.ballotId == retried.ballotId && outcome.total == 6 && outcome.sequence == 1)
            let (votes, applied) = try await stored(pool, id)
            #expect(votes == 7 && applied == 2)
        }
    }

    @Test func aDeletedObjectIsNotFound() async throws {
        try await PostsDatabase.withScratch { pool in
            let id = try await make(pool)
            _ = try await apply(pool, id, [Self.ballot()])
            _ = try await PostsDatabase.call(pool, "DELETE", "classes/\(Self.className)/\(id)")
            let outcome = try #require(try await apply(pool, id, [Self.ballot()]).first)
            #expect(outcome.error?.code == .objectNotFound)
            #expect(remembered(id) == nil)
        }
    }

    /// Likes are decided on what the likes table holds: their rounds always read it.
    @Test func likesAreNeverDecidedFromMemory() async throws {
        try await PostsDatabase.withScratch { pool in
            let id = try await make(pool)
            let like = CounterBallots(className: Self.className, objectId: id, field: "votes", oncePerUser: true,
                                       ballots: [Self.ballot(by: Identity(userId: "u1"))])
            _ = try await ApplyBallotsHandler(pool: pool, counters: Self.counters, schemas: Self.schemas).apply(ApplyBallots(groups: [like]))
            #expect(remembered(id) == nil)
            _ = try await apply(pool, id, [Self.ballot()])
            #expect(remembered(id) != nil)
            #expect(CounterUpdate(className: Self.className, groups: [like], schemas: Self.schemas).cachedUpdate(from: Self.counters) == nil)
        }
    }

    /// With several posts processes taking a counter's rounds in turn, each finds it changed at every round: a
    /// counter found changed is not remembered again until a while has passed.
    @Test func aCounterFoundChangedIsRememberedAgainOnlyAfterAWhile() {
        let cache = CounterCache(distrustFor: .seconds(10))
        let key = CounterCache.Key(className: Self.className, objectId: "c1", field: "votes")
        let entry = CounterCache.Entry(value: 3, lastSequence: 3, writers: nil)
        let second: UInt64 = 1_000_000_000
        cache.store([key: entry], now: 100 * second)
        #expect(cache.get(key) == entry)
        cache.distrust([key], now: 100 * second)
        #expect(cache.get(key) == nil)
        cache.store([key: entry], now: 109 * second)
        #expect(cache.get(key) == nil)
        cache.store([key: entry], now: 110 * second)
        #expect(cache.get(key) == entry)
    }
}
