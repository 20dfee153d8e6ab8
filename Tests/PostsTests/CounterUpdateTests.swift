import Contracts
import Foundation
import ParseWire
import Storage
import Testing
@testable import PostsCore

/// A vote round locks its rows with the columns of the schema this process read last, in the same round trip as
/// it reads the schema again: another replica may have changed the schema meanwhile.
@Suite(.serialized, .enabled(if: PostsDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL (run with `deploy/stack test`)"))
struct CounterUpdateTests {
    static let className = "StaleSchemaCat"
    /// The suite's own, as the posts service makes one at start.
    static let counters = CounterCache()
    /// The suite's own, as the posts service makes one at start.
    static let schemas = SchemaCache()

    private func vote(_ pool: PostgresPool, _ id: String) async throws -> BallotResult? {
        let batch = ApplyBallots(groups: [CounterBallots(
            className: Self.className, objectId: id, field: "votes",
            ballots: [.init(ballotId: UUID().uuidString, kind: .increment, value: 1, voter: .anonymous)])])
        return try await ApplyBallotsHandler(pool: pool, counters: Self.counters, schemas: Self.schemas).apply(batch).outcomes.first
    }

    @Test func aStaleCachedSchemaNeitherFailsNorMiscountsARound() async throws {
        try await PostsDatabase.withScratch { pool in
            let made = try await PostsDatabase.call(pool, "POST", "classes/\(Self.className)", #"{"votes":5}"#)
            let id = try #require(PostsDatabase.json(made)["objectId"]?.stringValue)
            #expect(try await vote(pool, id)?.total == 6)
            let withVotes = try #require(Self.schemas.get(Self.className))

            // Cached without the column while the table has it: the value is read, not taken for 0.
            var without = withVotes
            without.fields["votes"] = nil
            without.fingerprint = "stale"
            Self.schemas.set(without)
            #expect(try await vote(pool, id)?.total == 7)

            // Cached with a column another replica dropped since: the round runs again with the schema read anew,
            // and counts from 0 in a column made afresh.
            _ = try await PostsDatabase.call(pool, "PUT", "schemas/\(Self.className)",
                                             #"{"className":"\#(Self.className)","fields":{"votes":{"__op":"Delete"}}}"#, as: .master)
            Self.schemas.set(withVotes)
            #expect(try await vote(pool, id)?.total == 1)
            #expect(try await vote(pool, id)?.total == 2)
        }
    }

    /// A counted ballot is answered with the version of the class's permissions it was applied under, which its
    /// vote event carries to `live`; after another replica changed them, with the new version, although this
    /// process still remembers the counter and the schema from before.
    @Test func aCountedBallotNamesThePermissionsItWasAppliedUnder() async throws {
        try await PostsDatabase.withScratch { pool in
            let made = try await PostsDatabase.call(pool, "POST", "classes/\(Self.className)", #"{"votes":5}"#)
            let id = try #require(PostsDatabase.json(made)["objectId"]?.stringValue)
            let before = try #require(try await vote(pool, id))
            let stored = { () async throws -> String? in
                try await pool.withConnection { try await SchemaStore.load(Self.className, on: $0)?.permissionsVersion }
            }
            let storedBefore = try await stored()
            #expect(before.permissionsVersion != nil && before.permissionsVersion == storedBefore)
            #expect(try await vote(pool, id)?.permissionsVersion == before.permissionsVersion, "remembered round")

            let hiding = #"{"className":"\#(Self.className)","classLevelPermissions":{"find":{"*":true},"get":{"*":true},"#
                + #""count":{"*":true},"create":{"*":true},"update":{"*":true},"delete":{"*":true},"addField":{"*":true},"#
                + #""protectedFields":{"*":["votes"]}}}"#
            let changed = try await PostsDatabase.call(pool, "PUT", "schemas/\(Self.className)", hiding, as: .master)
            #expect(changed.status == 200, "\(changed.body)")
            let after = try #require(try await vote(pool, id))
            #expect(after.total == 8)
            let storedAfter = try await stored()
            #expect(after.permissionsVersion != before.permissionsVersion)
            #expect(after.permissionsVersion == storedAfter)
        }
    }
}
