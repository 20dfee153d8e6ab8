import Storage
import Testing

/// A transaction with a `TransactionCheck` and no preamble sends BEGIN and the check with its body's first
/// statement; the check's verdict still decides before anything commits, and before the statement's own error.
@Suite(.enabled(if: TestDatabase.isConfigured))
struct TransactionCheckTests {
    struct Stale: Error {}

    /// Passes while `generation` is at most `known`.
    private static func check(_ table: String, known: Int) -> TransactionCheck {
        TransactionCheck(PostgresStatement("SELECT max(n) AS generation FROM \(table)_generation")) { result in
            if (result.first?.int("generation") ?? 0) > known { throw Stale() }
        }
    }

    private func withTables(_ body: (PostgresConnection, String) async throws -> Void) async throws {
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        let table = TestDatabase.uniqueName("checked")
        _ = try await connection.query("CREATE TABLE \(table) (id text PRIMARY KEY)")
        _ = try await connection.query("CREATE TABLE \(table)_generation (n integer)")
        _ = try await connection.query("INSERT INTO \(table)_generation VALUES (1)")
        var failure: (any Error)?
        do { try await body(connection, table) } catch { failure = error }
        _ = try? await connection.query("DROP TABLE \(table), \(table)_generation")
        await connection.close()
        if let failure { throw failure }
    }

    private func ids(_ connection: PostgresConnection, _ table: String) async throws -> [String] {
        try await connection.query("SELECT id FROM \(table) ORDER BY id").rows.compactMap { $0["id"] }
    }

    @Test func aPassingCheckCommitsTheBody() async throws {
        try await withTables { connection, table in
            try await TransactionCheck.$current.withValue(Self.check(table, known: 1)) {
                try await connection.transaction { connection in
                    _ = try await connection.query("INSERT INTO \(table) VALUES ($1)", ["a"])
                    _ = try await connection.pipeline([PostgresStatement("INSERT INTO \(table) VALUES ($1)", ["b"])])
                }
            }
            #expect(try await ids(connection, table) == ["a", "b"])
        }
    }

    @Test func aFailingCheckRollsTheFirstStatementBack() async throws {
        try await withTables { connection, table in
            await #expect(throws: Stale.self) {
                try await TransactionCheck.$current.withValue(Self.check(table, known: 0)) {
                    try await connection.transaction { connection in
                        _ = try await connection.query("INSERT INTO \(table) VALUES ($1)", ["a"])
                    }
                }
            }
            let stored = try await ids(connection, table)
            #expect(stored.isEmpty)
            let one = try await connection.query("SELECT 1 AS one").first?["one"]
            #expect(one == "1")
        }
    }

    /// The statement failed, but it may have been decided with what the check refuses: the check's verdict wins.
    @Test func theChecksVerdictComesBeforeTheFirstStatementsError() async throws {
        try await withTables { connection, table in
            _ = try await connection.query("INSERT INTO \(table) VALUES ('a')")
            let insert = "INSERT INTO \(table) VALUES ($1)"
            await #expect(throws: Stale.self) {
                try await TransactionCheck.$current.withValue(Self.check(table, known: 0)) {
                    try await connection.transaction { connection in _ = try await connection.query(insert, ["a"]) }
                }
            }
            let duplicate = await #expect(throws: PostgresError.self) {
                try await TransactionCheck.$current.withValue(Self.check(table, known: 1)) {
                    try await connection.transaction { connection in _ = try await connection.query(insert, ["a"]) }
                }
            }
            #expect(duplicate?.sqlState == "23505")
            #expect(try await ids(connection, table) == ["a"])
        }
    }

    @Test func aBodyThatSendsNothingLeavesNoTransactionOpen() async throws {
        try await withTables { connection, table in
            let value = try await TransactionCheck.$current.withValue(Self.check(table, known: 0)) {
                try await connection.transaction { _ in 7 }
            }
            #expect(value == 7)
            // Inside a transaction (one begun late by a leftover opening, say) both would read the same now().
            let first = try await connection.query("SELECT now()::text AS t").first?["t"]
            _ = try await connection.query("SELECT pg_sleep(0.01)")
            let second = try await connection.query("SELECT now()::text AS t").first?["t"]
            #expect(first != second)
        }
    }

    /// A prepared statement whose table changed shape fails once on the server; the transaction begins again.
    @Test func aStalePreparedFirstStatementIsSentAgain() async throws {
        try await withTables { connection, table in
            let select = "SELECT * FROM \(table) WHERE id = $1"
            for _ in 0..<3 { _ = try await connection.query(select, ["x"]) }
            _ = try await connection.query("ALTER TABLE \(table) ADD COLUMN extra integer")
            _ = try await connection.query("INSERT INTO \(table) VALUES ('x', 5)")
            let extra = try await TransactionCheck.$current.withValue(Self.check(table, known: 1)) {
                try await connection.transaction { connection in try await connection.query(select, ["x"]).first?["extra"] }
            }
            #expect(extra == "5")
        }
    }
}
