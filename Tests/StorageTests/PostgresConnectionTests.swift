import Foundation
import Storage
import Testing

@Suite(.enabled(if: TestDatabase.isConfigured))
struct PostgresConnectionTests {
    @Test func everyBindableTypeRoundTrips() async throws {
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        let table = TestDatabase.uniqueName("bindables")
        try await connection.execute(script: """
            CREATE TABLE \(table) (text_value text, int_value bigint, int64_value bigint, int32_value integer,
              double_value double precision, bool_value boolean, date_value timestamptz, bytes_value bytea,
              data_value bytea, uuid_value uuid)
            """)
        let text = "Ünïcødé 🐱 'quoted' \"double\" back\\slash\nnewline"
        let date = Date(timeIntervalSince1970: 1_717_171_717.123)
        let bytes = (0...255).map { UInt8($0) }
        let data = Data([0, 1, 0xfe, 0xff])
        let uuid = UUID()
        _ = try await connection.query(
            "INSERT INTO \(table) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            [text, Int.min, Int64.max, Int32.min, 0.1, true, date, bytes, data, uuid])

        let row = try #require(try await connection.query("SELECT * FROM \(table)").first)
        #expect(row["text_value"] == text)
        #expect(row.int("int_value") == Int.min)
        #expect(row["int64_value"] == String(Int64.max))
        #expect(row.int("int32_value") == Int(Int32.min))
        #expect(row.double("double_value") == 0.1)
        #expect(row.bool("bool_value") == true)
        #expect(row.date("date_value") == date)
        #expect(row.bytes("bytes_value") == bytes)
        #expect(row.bytes("data_value").map { Data($0) } == data)
        #expect(row["uuid_value"] == uuid.uuidString.lowercased())
        #expect(row[0] == text)
        #expect(row[99] == nil)
        #expect(row["no_such_column"] == nil)
        _ = try await connection.query("DROP TABLE \(table)")
        await connection.close()
    }

    @Test func nullsTravelBothWays() async throws {
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        let table = TestDatabase.uniqueName("nulls")
        try await connection.execute(script: "CREATE TABLE \(table) (name text, count bigint, flag boolean, blob bytea)")
        _ = try await connection.query("INSERT INTO \(table) VALUES ($1, $2, $3, $4)", [nil, nil, nil, nil])
        let result = try await connection.query("SELECT * FROM \(table)")
        let row = try #require(result.first)
        #expect(result.columns == ["name", "count", "flag", "blob"])
        #expect(row["name"] == nil)
        #expect(row.int("count") == nil)
        #expect(row.bool("flag") == nil)
        #expect(row.bytes("blob") == nil)
        let emptyText = try await connection.query("SELECT $1::text AS value", [""])
        #expect(emptyText.first?["value"] == "")
        _ = try await connection.query("DROP TABLE \(table)")
        await connection.close()
    }

    @Test func injectionAttemptIsStoredVerbatim() async throws {
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        let table = TestDatabase.uniqueName("injection")
        try await connection.execute(script: "CREATE TABLE \(table) (id serial PRIMARY KEY, name text)")
        let hostile = "x'); DROP TABLE \(table); -- $1 \\' \""
        let inserted = try await connection.query("INSERT INTO \(table) (name) VALUES ($1)", [hostile])
        #expect(inserted.affectedRows == 1)
        let found = try await connection.query("SELECT name FROM \(table) WHERE name = $1", [hostile])
        #expect(found.rows.count == 1)
        #expect(found.first?["name"] == hostile)
        _ = try await connection.query("DROP TABLE \(table)")
        await connection.close()
    }

    @Test func affectedRowsAndCommandTag() async throws {
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        let table = TestDatabase.uniqueName("affected")
        try await connection.execute(script: "CREATE TABLE \(table) (n int); INSERT INTO \(table) SELECT generate_series(1, 5)")
        let updated = try await connection.query("UPDATE \(table) SET n = n + 1 WHERE n > $1", [2])
        #expect(updated.affectedRows == 3)
        #expect(updated.commandTag == "UPDATE 3")
        let deleted = try await connection.query("DELETE FROM \(table)")
        #expect(deleted.affectedRows == 5)
        _ = try await connection.query("DROP TABLE \(table)")
        await connection.close()
    }

    @Test func errorsCarrySQLState() async throws {
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        let table = TestDatabase.uniqueName("errors")
        try await connection.execute(script: "CREATE TABLE \(table) (id text CONSTRAINT \(table)_pk PRIMARY KEY)")
        _ = try await connection.query("INSERT INTO \(table) VALUES ($1)", ["a"])

        let duplicate = await #expect(throws: PostgresError.self) {
            try await connection.query("INSERT INTO \(table) VALUES ($1)", ["a"])
        }
        #expect(duplicate?.sqlState == "23505")
        #expect(duplicate?.constraint == "\(table)_pk")
        #expect(duplicate?.isConnectionFailure == false)

        let syntax = await #expect(throws: PostgresError.self) { try await connection.query("SELEC 1") }
        #expect(syntax?.sqlState == "42601")

        let missing = await #expect(throws: PostgresError.self) {
            try await connection.query("SELECT * FROM \(table)_missing")
        }
        #expect(missing?.sqlState == "42P01")

        let script = await #expect(throws: PostgresError.self) {
            try await connection.execute(script: "SELECT 1; SELEC 2")
        }
        #expect(script?.sqlState == "42601")

        // The session stays usable after statement errors.
        #expect(connection.isOpen)
        #expect(try await connection.query("SELECT count(*) AS n FROM \(table)").first?.int("n") == 1)
        _ = try await connection.query("DROP TABLE \(table)")
        await connection.close()
        #expect(!connection.isOpen)
    }

    @Test func nulCharacterInParameterIsRefused() async throws {
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        let error = await #expect(throws: PostgresError.self) {
            try await connection.query("SELECT $1::text", ["before\u{0}after"])
        }
        #expect(error?.sqlState == "22021")
        await connection.close()
    }

    @Test func unreachableServerIsAConnectionFailure() async throws {
        let error = await #expect(throws: PostgresError.self) {
            try await PostgresConnection.connect(url: "postgres://postgres@127.0.0.1:1/nothing?connect_timeout=2")
        }
        #expect(error?.isConnectionFailure == true)
        #expect(error?.sqlState == nil)
    }

    @Test func droppedSessionIsReportedAsConnectionFailure() async throws {
        let applicationName = TestDatabase.uniqueName("dropped")
        let connection = try await PostgresConnection.connect(url: TestDatabase.url(applicationName: applicationName))
        #expect(connection.isOpen)
        try await ServerSessions.terminate(applicationName: applicationName)

        let error = await #expect(throws: PostgresError.self) { try await connection.query("SELECT 1") }
        #expect(error?.isConnectionFailure == true)
        #expect(!connection.isOpen)
        await connection.close()
    }

    @Test func transactionCommitsOrRollsBack() async throws {
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        let table = TestDatabase.uniqueName("conn_tx")
        try await connection.execute(script: "CREATE TABLE \(table) (n int)")
        let value = try await connection.transaction { connection in
            _ = try await connection.query("INSERT INTO \(table) VALUES (1)")
            return 42
        }
        #expect(value == 42)
        await #expect(throws: ExpectedFailure.self) {
            try await connection.transaction { connection in
                _ = try await connection.query("INSERT INTO \(table) VALUES (2)")
                throw ExpectedFailure()
            }
        }
        // A failed statement whose error the closure swallows must not look like a commit.
        let swallowed = await #expect(throws: PostgresError.self) {
            try await connection.transaction { connection in
                _ = try await connection.query("INSERT INTO \(table) VALUES (3)")
                _ = try? await connection.query("SELEC 1")
            }
        }
        #expect(swallowed?.sqlState == "25P02")
        let rows = try await connection.query("SELECT n FROM \(table) ORDER BY n")
        #expect(rows.rows.compactMap { $0.int("n") } == [1])
        _ = try await connection.query("DROP TABLE \(table)")
        await connection.close()
    }
}
