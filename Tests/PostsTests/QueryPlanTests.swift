import Contracts
import ParseWire
import Query
import Storage
import Testing
@testable import PostsCore

/// The geo and text queries read an index, not the table, on a class of 100k objects.
@Suite(.serialized, .enabled(if: PostsDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL (run with `deploy/stack test`)"))
struct QueryPlanTests {
    /// The plan of `clause` on class `Big` as an anonymous caller's find runs it, after a first query built the
    /// indexes it wants.
    static func plan(_ pool: PostgresPool, _ query: [String: String]) async throws -> String {
        let options = try QueryOptions.merge(query: query, body: nil)
        let first = try await PostsDatabase.call(pool, "GET", "classes/Big", query: query)
        #expect(first.status == 200, "\(first.body)")
        return try await pool.withConnection { connection in
            let context = RequestContext(identity: .anonymous, serverURL: "http://x/parse", configuration: PostsConfiguration(),
                                         requestId: "t")
            let reader = ObjectReader(context: context, connection: connection)
            let schema = try #require(try await SchemaStore.load("Big", on: connection))
            let statement = try await reader.prepareFind(schema, options: QueryOptions(find: options))
            let rows = try await connection.query("EXPLAIN " + (statement.rowsSQL ?? ""), statement.parameters).rows
            return rows.compactMap { $0[0] }.joined(separator: "\n")
        }
    }

    @Test func textSearchesOn100kRowsReadTheirIndex() async throws {
        try await PostsDatabase.withScratch { pool in
            _ = try await PostsDatabase.call(pool, "POST", "classes/Big", #"{"name":"first","subject":"coffee and cream"}"#)
            _ = try await pool.query("""
                INSERT INTO classes."Big" ("objectId", "createdAt", "updatedAt", "name", "subject")
                SELECT 'id' || i, now(), now(), md5(i::text), 'note ' || md5(i::text) || CASE WHEN i % 1000 = 0 THEN ' coffee' ELSE '' END
                FROM generate_series(1, 100000) AS i
                """)
            _ = try await pool.query("ANALYZE classes.\"Big\"")
            for language in ["english", "spanish"] {
                let plan = try await Self.plan(pool, ["where": #"{"subject":{"$text":{"$search":{"$term":"coffee","$language":"\#(language)"}}}}"#])
                #expect(plan.contains("Bitmap Index Scan on \"Big_subject_text"), "\(plan)")
                #expect(!plan.contains("Seq Scan"), "\(plan)")
            }
            let reply = try await PostsDatabase.call(pool, "GET", "classes/Big", query: [
                "where": #"{"subject":{"$text":{"$search":{"$term":"coffee"}}}}"#, "count": "1", "limit": "0",
            ])
            #expect(PostsDatabase.json(reply)["count"]?.numberValue == 101)
        }
    }

    @Test func geoQueriesOn100kPointsReadTheirIndexes() async throws {
        try await PostsDatabase.withScratch { pool in
            _ = try await PostsDatabase.call(pool, "POST", "classes/Big",
                                             #"{"name":"first","location":{"__type":"GeoPoint","latitude":1,"longitude":2}}"#)
            _ = try await pool.query("""
                INSERT INTO classes."Big" ("objectId", "createdAt", "updatedAt", "name", "location")
                SELECT 'id' || i, now(), now(), md5(i::text), point(random() * 360 - 180, random() * 180 - 90)
                FROM generate_series(1, 100000) AS i
                """)
            _ = try await pool.query("ANALYZE classes.\"Big\"")
            let center = #"{"__type":"GeoPoint","latitude":48.85,"longitude":2.35}"#
            let near = try await Self.plan(pool, ["where": #"{"location":{"$nearSphere":\#(center)}}"#, "limit": "25"])
            #expect(near.contains("Index Scan using \"Big_location_2dsphere\""), "\(near)")
            #expect(!near.contains("Seq Scan") && !near.contains("Sort"), "\(near)")
            let radius = try await Self.plan(pool, ["where": #"{"location":{"$nearSphere":\#(center),"$maxDistanceInKilometers":50}}"#])
            #expect(radius.contains("Big_location_2dsphere"), "\(radius)")
            #expect(!radius.contains("Seq Scan"), "\(radius)")
            let box = try await Self.plan(pool, ["where": #"""
                {"location":{"$within":{"$box":[{"__type":"GeoPoint","latitude":48,"longitude":2},{"__type":"GeoPoint","latitude":49,"longitude":3}]}}}
                """#])
            #expect(box.contains("Big_location_2d\""), "\(box)")
            #expect(!box.contains("Seq Scan"), "\(box)")
            // The answers agree with a scan computing the distance in full.
            let reply = try await PostsDatabase.call(pool, "GET", "classes/Big", query: [
                "where": #"{"location":{"$nearSphere":{"__type":"GeoPoint","latitude":48.85,"longitude":2.35}}}"#, "limit": "5",
            ])
            let found = PostsDatabase.json(reply)["results"]?.arrayValue?.compactMap { $0["objectId"]?.stringValue } ?? []
            let expected = try await pool.query("""
                SELECT "objectId" FROM classes."Big" ORDER BY acos(least(1, sin(radians(48.85)) * sin(radians(location[1]))
                    + cos(radians(48.85)) * cos(radians(location[1])) * cos(radians(location[0] - 2.35)))) LIMIT 5
                """).rows.compactMap { $0["objectId"] }
            #expect(found == expected)
        }
    }
}
