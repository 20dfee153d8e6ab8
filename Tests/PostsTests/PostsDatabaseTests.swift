import Contracts
import ParseWire
import Runtime
import Storage
import Query
import Testing
@testable import PostsCore

@Suite(.serialized, .enabled(if: PostsDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL (run with `deploy/stack test`)"))
struct PostsDatabaseTests {
    @Test func usersAndRolesSeeOnlyWhatTheirACLsGrant() async throws {
        try await PostsDatabase.withScratch { pool in
            let master = Identity.master
            for (n, acl) in [(1, #"{"u1":{"read":true,"write":true}}"#), (2, #"{"role:Admin":{"read":true}}"#),
                             (3, #"{"*":{"read":true},"u2":{"write":true}}"#)] {
                let made = try await PostsDatabase.call(pool, "POST", "classes/Doc", #"{"n":\#(n),"ACL":\#(acl)}"#, as: master)
                #expect(made.status == 201)
            }
            func visible(_ identity: Identity) async throws -> [Double] {
                let reply = try await PostsDatabase.call(pool, "GET", "classes/Doc", query: ["order": "n"], as: identity)
                return PostsDatabase.json(reply)["results"]?.arrayValue?.compactMap { $0["n"]?.numberValue } ?? []
            }
            #expect(try await visible(.anonymous) == [3])
            #expect(try await visible(Identity(userId: "u1")) == [1, 3])
            #expect(try await visible(Identity(userId: "u9", roles: ["Admin"])) == [2, 3])
            #expect(try await visible(Identity(roles: ["role:Admin"])) == [2, 3])
            #expect(try await visible(.master) == [1, 2, 3])

        }
    }

    @Test func unwritableObjectsAnswer101ToUpdateAndDelete() async throws {
        try await PostsDatabase.withScratch { pool in
            let made = try await PostsDatabase.call(pool, "POST", "classes/Doc", #"{"n":1,"ACL":{"*":{"read":true},"u2":{"write":true}}}"#)
            let id = try #require(PostsDatabase.json(made)["objectId"]?.stringValue)
            for identity in [Identity.anonymous, Identity(userId: "u1")] {
                await #expect(throws: ParseError(.objectNotFound, "Object not found.")) {
                    _ = try await PostsDatabase.call(pool, "PUT", "classes/Doc/\(id)", #"{"n":2}"#, as: identity)
                }
                await #expect(throws: ParseError(.objectNotFound, "Object not found.")) {
                    _ = try await PostsDatabase.call(pool, "DELETE", "classes/Doc/\(id)", as: identity)
                }
            }
            let byOwner = try await PostsDatabase.call(pool, "PUT", "classes/Doc/\(id)", #"{"n":2}"#, as: Identity(userId: "u2"))
            #expect(byOwner.status == 200)
            let readOnlyMaster = Identity(isReadOnlyMaster: true)
            await #expect(throws: ParseError(.operationForbidden, "read-only masterKey isn't allowed to perform the update operation.")) {
                _ = try await PostsDatabase.call(pool, "PUT", "classes/Doc/\(id)", #"{"n":3}"#, as: readOnlyMaster)
            }
        }
    }

    @Test func clientClassCreationCanBeSwitchedOff() async throws {
        try await PostsDatabase.withScratch { pool in
            let context = RequestContext(identity: .anonymous, serverURL: "http://x/parse",
                                         configuration: PostsConfiguration(allowClientClassCreation: false), requestId: "t")
            let request = RESTRequest(method: "POST", path: "classes/Fresh", query: [:], body: #"{"a":1}"#, serverURL: "http://x/parse")
            await #expect(throws: ParseError(.operationForbidden, "This user is not allowed to access non-existent class: Fresh")) {
                _ = try await pool.withConnection { try await PostsHandler(context: context).handle(request, on: $0) }
            }
            let env = try PostsConfiguration.fromEnvironment(Environment(["PARSE_SERVER_ALLOW_CLIENT_CLASS_CREATION": "false"]))
            #expect(!env.allowClientClassCreation)
            #expect(try PostsConfiguration.fromEnvironment(Environment([:])).allowClientClassCreation)
        }
    }

    @Test func writesLeaveTheirEventsInTheOutboxInTheSameTransaction() async throws {
        try await PostsDatabase.withScratch { pool in
            let made = try await PostsDatabase.call(pool, "POST", "classes/Cat", #"{"name":"Tom"}"#)
            let id = try #require(PostsDatabase.json(made)["objectId"]?.stringValue)
            _ = try await PostsDatabase.call(pool, "PUT", "classes/Cat/\(id)", #"{"votes":{"__op":"Increment","amount":1}}"#)
            _ = try await PostsDatabase.call(pool, "DELETE", "classes/Cat/\(id)")
            // A failed transactional batch leaves no event behind.
            let failed = try await PostsDatabase.call(pool, "POST", "batch", #"{"transaction":true,"requests":[{"method":"POST","path":"/parse/classes/Cat","body":{"name":"Ghost"}},{"method":"POST","path":"/parse/classes/Cat","body":{"name":1}}]}"#)
            #expect(failed.status == 500)
            let rows = try await pool.query("SELECT routing_key, payload::text AS payload FROM outbox ORDER BY id").rows
            #expect(rows.map { $0["routing_key"] } == ["object.created.Cat", "object.updated.Cat", "object.deleted.Cat"])
            let updated = try #require(JSONValue.parse(rows[1]["payload"] ?? ""))
            #expect(updated["type"]?.stringValue == "object.updated.v1")
            #expect(updated["subject"]?.stringValue == "Cat/\(id)")
            #expect(updated["data"]?["object"]?["votes"]?.numberValue == 1)
            #expect(updated["data"]?["object"]?["name"]?.stringValue == "Tom")
            // The object before the change rides along, and a delete carries what was deleted.
            #expect(updated["data"]?["original"]?["name"]?.stringValue == "Tom")
            #expect(updated["data"]?["original"]?["votes"] == nil)
            let deleted = try #require(JSONValue.parse(rows[2]["payload"] ?? ""))
            #expect(deleted["data"]?["object"]?["objectId"]?.stringValue == id)
            #expect(deleted["data"]?["object"]?["name"]?.stringValue == "Tom")
        }
    }

    @Test func orderByNameWithALimitReadsAnIndexNotTheTable() async throws {
        try await PostsDatabase.withScratch { pool in
            _ = try await PostsDatabase.call(pool, "POST", "classes/Big", #"{"name":"first","votes":1}"#)
            _ = try await pool.query("""
                INSERT INTO classes."Big" ("objectId", "createdAt", "updatedAt", "name", "votes")
                SELECT 'id' || i, now(), now(), md5(i::text), i FROM generate_series(1, 100000) AS i
                """)
            _ = try await pool.query("ANALYZE classes.\"Big\"")
            // The first query on a field builds its index.
            let first = try await PostsDatabase.call(pool, "GET", "classes/Big", query: ["order": "name", "limit": "25"])
            #expect(PostsDatabase.json(first)["results"]?.arrayValue?.count == 25)
            for (order, identity) in [("name", Identity.anonymous), ("-votes", Identity.anonymous), ("name", Identity.master)] {
                _ = try await PostsDatabase.call(pool, "GET", "classes/Big", query: ["order": order, "limit": "25"])
                let plan = try await pool.withConnection { connection in
                    let context = RequestContext(identity: identity, serverURL: "http://x/parse", configuration: PostsConfiguration(),
                                                 requestId: "t")
                    let reader = ObjectReader(context: context, connection: connection)
                    let schema = try #require(try await SchemaStore.load("Big", on: connection))
                    let statement = try await reader.prepareFind(schema, options: QueryOptions(find: ["order": .string(order), "limit": .number(25)]))
                    let rows = try await connection.query("EXPLAIN " + (statement.rowsSQL ?? ""), statement.parameters).rows
                    return rows.compactMap { $0[0] }.joined(separator: "\n")
                }
                #expect(plan.contains("Index Scan"), "\(order): \(plan)")
                #expect(!plan.contains("Seq Scan"), "\(order): \(plan)")
            }
        }
    }

    @Test func aSchemaChangedElsewhereIsSeenAtTheNextRead() async throws {
        try await PostsDatabase.withScratch { pool in
            // One process's requests, sharing what it has read.
            let schemas = SchemaCache()
            func call(_ method: String, _ path: String, _ body: String? = nil,
                      query: [String: String] = [:]) async throws -> RESTResponse {
                try await PostsDatabase.call(pool, method, path, body, query: query, schemas: schemas)
            }
            let made = try await call("POST", "classes/Shared", #"{"a":1}"#)
            let id = try #require(PostsDatabase.json(made)["objectId"]?.stringValue)
            _ = try await call("GET", "classes/Shared/\(id)")
            #expect(schemas.get("Shared") != nil)
            // Another replica adds a field: this process's cached schema does not know it.
            _ = try await pool.query(#"ALTER TABLE classes."Shared" ADD COLUMN "b" text"#)
            _ = try await pool.query(#"UPDATE classes."Shared" SET "b" = 'new'"#)
            _ = try await pool.query(#"UPDATE parse_schema SET fields = fields || '{"b":{"type":"String"}}' WHERE class_name = 'Shared'"#)
            let got = try await call("GET", "classes/Shared/\(id)")
            #expect(PostsDatabase.json(got)["b"]?.stringValue == "new")
            let found = try await call("GET", "classes/Shared", query: ["where": #"{"b":"new"}"#])
            #expect(PostsDatabase.json(found)["results"]?.arrayValue?.count == 1)
            // And drops it again.
            _ = try await pool.query(#"ALTER TABLE classes."Shared" DROP COLUMN "b""#)
            _ = try await pool.query(#"UPDATE parse_schema SET fields = fields - 'b' WHERE class_name = 'Shared'"#)
            let after = try await call("GET", "classes/Shared/\(id)")
            #expect(PostsDatabase.json(after)["b"] == nil)
            #expect(PostsDatabase.json(after)["a"]?.numberValue == 1)
        }
    }

    /// A create trusts the schema this process read only as far as its INSERT finds it unchanged: what changed
    /// elsewhere (the class-level permissions, a field's type) decides the create as it would without the cache.
    @Test func aCreateDecidesOnTheSchemaAsItIsNow() async throws {
        try await PostsDatabase.withScratch { pool in
            let schemas = SchemaCache()
            func create(_ body: String) async throws -> RESTResponse {
                try await PostsDatabase.call(pool, "POST", "classes/Kept", body, schemas: schemas)
            }
            // The first create makes the class; the second reads its schema; the third uses what the second read.
            for n in 1...3 { #expect(try await create(#"{"a":\#(n)}"#).status == 201) }
            let cached = try #require(schemas.get("Kept"))

            // Another replica closes creates to clients.
            _ = try await pool.query(#"UPDATE parse_schema SET class_level_permissions = '{"create":{}}' WHERE class_name = 'Kept'"#)
            #expect(schemas.get("Kept")?.fingerprint == cached.fingerprint)
            await #expect(throws: ParseError(.operationForbidden, "Permission denied for action create on class Kept.")) {
                _ = try await create(#"{"a":4}"#)
            }
            // ... then opens them again, and gives `a` another type.
            _ = try await pool.query(#"UPDATE parse_schema SET class_level_permissions = NULL WHERE class_name = 'Kept'"#)
            _ = try await pool.query(#"ALTER TABLE classes."Kept" DROP COLUMN "a", ADD COLUMN "a" text"#)
            _ = try await pool.query(#"UPDATE parse_schema SET fields = fields || '{"a":{"type":"String"}}' WHERE class_name = 'Kept'"#)
            await #expect(throws: ParseError(.incorrectType, "schema mismatch for Kept.a; expected String but got Number")) {
                _ = try await create(#"{"a":5}"#)
            }
            let made = try await create(#"{"a":"six"}"#)
            let id = try #require(PostsDatabase.json(made)["objectId"]?.stringValue)
            let stored = try await pool.query(#"SELECT "a" FROM classes."Kept" WHERE "objectId" = $1"#, [id])
            #expect(stored.first?["a"] == "six")
            // Another replica deletes the field: the INSERT this process would make names a column that is gone.
            #expect(schemas.get("Kept")?.fields["a"] != nil)
            _ = try await pool.query(#"ALTER TABLE classes."Kept" DROP COLUMN "a""#)
            _ = try await pool.query(#"UPDATE parse_schema SET fields = fields - 'a' WHERE class_name = 'Kept'"#)
            #expect(try await create(#"{"a":"seven"}"#).status == 201)
            let counted = try await pool.query(#"SELECT count(*) AS n, count("a") AS a FROM classes."Kept""#)
            #expect(counted.first?["n"] == "5")
            #expect(counted.first?["a"] == "1")
        }
    }

    @Test func maxLimitClampsLargerLimits() async throws {
        try await PostsDatabase.withScratch { pool in
            for n in 0..<5 { _ = try await PostsDatabase.call(pool, "POST", "classes/Row", #"{"n":\#(n)}"#) }
            let context = RequestContext(identity: .anonymous, serverURL: "http://x/parse",
                                         configuration: PostsConfiguration(defaultLimit: 2, maxLimit: 3), requestId: "t")
            func count(_ query: [String: String]) async throws -> Int? {
                let request = RESTRequest(method: "GET", path: "classes/Row", query: query, body: nil, serverURL: "http://x/parse")
                let reply = try await pool.withConnection { try await PostsHandler(context: context).handle(request, on: $0) }
                return PostsDatabase.json(reply)["results"]?.arrayValue?.count
            }
            #expect(try await count([:]) == 2)
            #expect(try await count(["limit": "100"]) == 3)
            #expect(try await count(["limit": "1"]) == 1)
        }
    }
}
