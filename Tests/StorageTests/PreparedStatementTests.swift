import Storage
import Testing

@Suite(.enabled(if: TestDatabase.isConfigured))
struct PreparedStatementTests {
    /// A statement is prepared on its second run; later runs use it, and it follows changes to its table.
    @Test func repeatedStatementsArePreparedAndFollowTableChanges() async throws {
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        let table = TestDatabase.uniqueName("prepared")
        try await connection.execute(script: "CREATE TABLE \(table) (id text PRIMARY KEY, n integer)")
        _ = try await connection.query("INSERT INTO \(table) VALUES ('a', 1), ('b', 2)")
        let select = "SELECT n FROM \(table) WHERE id = $1"

        for (id, expected) in [("a", "1"), ("b", "2"), ("a", "1"), ("b", "2")] {
            #expect(try await connection.query(select, [id]).first?["n"] == expected)
        }
        let preparedHere = try await connection.query(
            "SELECT count(*) AS n FROM pg_prepared_statements WHERE statement = $1", [select]).first?["n"]
        #expect(preparedHere == "1")

        // The column's type changes under the prepared statement: the next run still answers, with the new type.
        _ = try await connection.query("ALTER TABLE \(table) ALTER COLUMN n TYPE text USING 'x' || n::text")
        #expect(try await connection.query(select, ["b"]).first?["n"] == "x2")
        #expect(try await connection.query(select, ["a"]).first?["n"] == "x1")

        // A statement that fails to prepare reports the server's error, as an unprepared one would.
        let broken = "SELECT no_such_column FROM \(table) WHERE id = $1"
        for _ in 0..<3 {
            await #expect(throws: PostgresError.self) { try await connection.query(broken, ["a"]) }
        }
        _ = try await connection.query("DROP TABLE \(table)")
        await connection.close()
    }
}
