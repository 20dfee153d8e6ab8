import ParseWire
import Query
import Runtime
import ScratchDatabase
import Storage
import Testing
@testable import PostsCore

@Suite(.serialized, .enabled(if: PostsDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL (run with `deploy/stack test`)"))
struct InstallationTableTests {
    static let table = #"classes."_Installation""#
    static let lookupIndexes = ["installationId", "deviceToken"].map(InstallationTable.indexName)

    /// Makes the class through a create, then adds `count` installations i1...iN with SQL, as devices registering
    /// in turn would leave them, and has PostgreSQL count them for its plans.
    static func fill(_ pool: PostgresPool, count: Int) async throws {
        let made = try await PostsDatabase.call(pool, "POST", "installations",
                                                #"{"installationId":"seed","deviceType":"android"}"#)
        #expect(made.status == 201)
        _ = try await pool.query("""
            INSERT INTO \(table) ("objectId", "createdAt", "updatedAt", "installationId", "deviceToken", "deviceType", badge)
            SELECT 'i' || i, now(), now(), 'id' || i, 'token' || i, 'ios', 0 FROM generate_series(1, \(count)) AS i
            """)
        _ = try await pool.query("ANALYZE \(table)")
    }

    static func indexes(_ pool: PostgresPool) async throws -> [String: String] {
        let rows = try await pool.query(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'classes' AND tablename = '_Installation'").rows
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["indexname"] ?? "", $0["indexdef"] ?? "") })
    }

    static func fillfactor(_ pool: PostgresPool) async throws -> String? {
        try await pool.query("SELECT array_to_string(reloptions, ',') AS options FROM pg_class WHERE oid = to_regclass($1)",
                             [table]).first?["options"]
    }

    @Test func aNewClassHasItsLookUpIndexesAndRoomOnItsPages() async throws {
        try await PostsDatabase.withScratch { pool in
            try await Self.fill(pool, count: 10)
            let indexes = try await Self.indexes(pool)
            #expect(indexes[InstallationTable.indexName("installationId")]?.hasSuffix(#"("installationId")"#) == true)
            #expect(indexes[InstallationTable.indexName("deviceToken")]?.hasSuffix(#"("deviceToken")"#) == true)
            #expect(try await Self.fillfactor(pool) == "fillfactor=\(InstallationTable.fillfactor)")
            // parse-server lists no such index in the class's schema.
            let schema = try await PostsDatabase.call(pool, "GET", "schemas/_Installation", as: .master)
            #expect(PostsDatabase.json(schema)["indexes"]?["installationId_lookup"] == nil)
        }
    }

    @Test func theLookUpOfADevicesRowsCombinesTheIndexes() async throws {
        try await PostsDatabase.withScratch { pool in
            try await Self.fill(pool, count: 20000)
            let statement = try #require(InstallationRules.matchesStatement(objectId: "i5", installationId: "id6",
                                                                            deviceToken: "token7"))
            let plan = try await pool.query("EXPLAIN " + statement.sql, statement.parameters).rows
                .compactMap { $0[0] }.joined(separator: "\n")
            #expect(plan.contains("BitmapOr"), "\(plan)")
            #expect(!plan.contains("Seq Scan"), "\(plan)")
            let rows = try await pool.query(statement.sql, statement.parameters).rows.compactMap { $0["objectId"] }
            #expect(Set(rows) == ["i5", "i6", "i7"])
        }
    }

    @Test func devicesAreFoundByInstallationIdByTokenAndByBothAmongManyInstallations() async throws {
        try await PostsDatabase.withScratch { pool in
            try await Self.fill(pool, count: 20000)
            func count() async throws -> Int? { try await pool.query("SELECT count(*) AS n FROM \(Self.table)").first?.int("n") }
            let before = try await count()
            let byId = try await PostsDatabase.call(pool, "POST", "installations",
                                                    #"{"installationId":"id100","deviceType":"ios","appVersion":"2"}"#)
            #expect(byId.status == 200)
            let byToken = try await PostsDatabase.call(pool, "POST", "installations",
                                                       #"{"deviceToken":"token200","deviceType":"ios","appVersion":"3"}"#)
            #expect(byToken.status == 200)
            // The token moves to installation id300's row; its old row i400 goes.
            let both = try await PostsDatabase.call(pool, "POST", "installations",
                                                    #"{"installationId":"id300","deviceToken":"token400","deviceType":"ios"}"#)
            #expect(both.status == 200)
            #expect(try await count() == before.map { $0 - 1 })
            let rows = try await pool.query("""
                SELECT "objectId", "appVersion", "deviceToken" FROM \(Self.table) WHERE "objectId" IN ('i100', 'i200', 'i300', 'i400')
                ORDER BY "objectId"
                """).rows
            #expect(rows.map { $0["objectId"] } == ["i100", "i200", "i300"])
            #expect(rows.map { $0["appVersion"] } == ["2", "3", nil])
            #expect(rows.last?["deviceToken"] == "token400")
        }
    }

    @Test func aBadgeUpdateStaysHOTAfterQueriesOnBadgeAndUpdatedAt() async throws {
        try await PostsDatabase.withScratch { pool in
            try await Self.fill(pool, count: 1000)
            // Queries make indexes for what they sort and filter on, but not for what a push writes.
            let found = try await PostsDatabase.call(pool, "GET", "installations",
                                                     query: ["where": #"{"badge":{"$gte":0},"deviceType":"ios"}"#,
                                                             "order": "-updatedAt", "limit": "5"], as: .master)
            #expect(PostsDatabase.json(found)["results"]?.arrayValue?.count == 5)
            let indexes = try await Self.indexes(pool)
            #expect(indexes.keys.contains { $0.contains("deviceType") })
            #expect(!indexes.keys.contains { $0.contains("badge") || $0.contains("updatedAt") }, "\(indexes.keys)")
            // The statistics of the transaction itself: no waiting for the server to report them.
            let counts = try await pool.withConnection { connection in
                _ = try await connection.query("BEGIN")
                _ = try await connection.query(#"UPDATE \#(Self.table) SET badge = badge + 1, "updatedAt" = now() WHERE "objectId" IN ('i10', 'i500', 'i990')"#)
                let row = try await connection.query(
                    "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE schemaname = 'classes' AND relname = '_Installation'").first
                _ = try await connection.query("COMMIT")
                return (row?.int("n_tup_upd"), row?.int("n_tup_hot_upd"))
            }
            #expect(counts.0 == 3)
            #expect(counts.1 == 3)
        }
    }

    @Test func theMigrationGivesAnExistingClassItsIndexesAndPageRoom() async throws {
        let earlier = PostsService.migrations.filter { $0.version < InstallationTable.migration.version }
        try await ScratchDatabase.withPool("posts", migrations: earlier, poolSize: 2, logger: PostsDatabase.logger) { pool in
            try await Self.fill(pool, count: 100)
            // The class as a server before the migration left it.
            for name in Self.lookupIndexes { _ = try await pool.query("DROP INDEX classes.\(Names.quoted(name))") }
            _ = try await pool.query("ALTER TABLE \(Self.table) RESET (fillfactor)")
            #expect(try await Self.fillfactor(pool) == nil)

            let applied = try await Migrator.migrate(PostsService.migrations, on: pool, logger: PostsDatabase.logger)
            #expect(applied.contains(InstallationTable.migration.version), "\(applied)")
            let indexes = try await Self.indexes(pool)
            for name in Self.lookupIndexes { #expect(indexes[name] != nil, "\(name): \(indexes.keys)") }
            #expect(try await Self.fillfactor(pool) == "fillfactor=\(InstallationTable.fillfactor)")
            let row = try await PostsDatabase.call(pool, "POST", "installations", #"{"installationId":"id50","deviceType":"ios"}"#)
            #expect(row.status == 200)
        }
    }
}
