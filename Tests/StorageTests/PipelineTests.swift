import Storage
import Testing

@Suite(.enabled(if: TestDatabase.isConfigured))
struct PipelineTests {
    /// Statements sent together answer in order, as if sent one at a time; the third run of a text uses the
    /// statement prepared on the second.
    @Test func answersEveryStatementInOrderAndPreparesRepeatedOnes() async throws {
        try await withTable("id text PRIMARY KEY, n integer") { connection, table in
            let insert = "INSERT INTO \(table) (id, n) VALUES ($1, $2::integer) RETURNING n"
            for round in 0..<3 {
                let results = try await connection.pipeline([
                    PostgresStatement(insert, ["a\(round)", 1]),
                    PostgresStatement(insert, ["b\(round)", nil]),
                    PostgresStatement("SELECT count(*) AS n FROM \(table)"),
                ])
                #expect(results.map(\.commandTag) == ["INSERT 0 1", "INSERT 0 1", "SELECT 1"])
                #expect(results[0].first?["n"] == "1" && results[1].first?["n"] == nil)
                #expect(results[2].first?["n"] == String(2 * (round + 1)))
            }
            let prepared = try await connection.query(
                "SELECT count(*) AS n FROM pg_prepared_statements WHERE statement = $1", [insert]).first?["n"]
            #expect(prepared == "1")
        }
    }

    /// The first failing statement's error is thrown and the ones after it do not run; outside a transaction the
    /// statements sent together are one implicit transaction, so the ones before it are undone too; the connection
    /// is usable afterwards.
    @Test func stopsAtTheFirstErrorAndStaysUsable() async throws {
        try await withTable("id text PRIMARY KEY") { connection, table in
            let insert = "INSERT INTO \(table) VALUES ($1)"
            await #expect(throws: PostgresError.self) {
                try await connection.pipeline([
                    PostgresStatement(insert, ["a"]), PostgresStatement(insert, ["a"]), PostgresStatement(insert, ["c"]),
                ])
            }
            let ids = try await connection.query("SELECT id FROM \(table) ORDER BY id").rows.compactMap { $0["id"] }
            #expect(ids.isEmpty)
            let error = await #expect(throws: PostgresError.self) {
                try await connection.pipeline([PostgresStatement("SELECT no_such_column FROM \(table)")])
            }
            #expect(error?.sqlState == "42703")
            #expect(try await connection.query("SELECT 1 AS one").first?["one"] == "1")
        }
    }

    /// A parameter libpq cannot carry (a NUL character) is refused before anything is queued, so the session does
    /// not stay in pipeline mode.
    @Test func aParameterWithANulCharacterIsRefusedAndTheSessionStaysUsable() async throws {
        try await withTable("id text PRIMARY KEY") { connection, table in
            let error = await #expect(throws: PostgresError.self) {
                try await connection.pipeline([PostgresStatement("SELECT 1"),
                                               PostgresStatement("INSERT INTO \(table) VALUES ($1)", ["a\u{0}b"])])
            }
            #expect(error?.sqlState == "22021")
            let one = try await connection.query("SELECT 1 AS one").first?["one"]
            #expect(one == "1")
        }
    }

    /// BEGIN travels with the body's first statements and COMMIT with its last ones; a failure rolls back all.
    @Test func pipelinedTransactionCommitsOrRollsBackAsOne() async throws {
        try await withTable("id text PRIMARY KEY") { connection, table in
            let insert = "INSERT INTO \(table) VALUES ($1)"
            let value = try await connection.pipelinedTransaction { connection, opening in
                let results = try await connection.pipeline(opening + [PostgresStatement(insert, ["a"])])
                return (results.count, [PostgresStatement(insert, ["b"])])
            }
            #expect(value == 2)
            await #expect(throws: PostgresError.self) {
                try await connection.pipelinedTransaction { connection, opening in
                    _ = try await connection.pipeline(opening + [PostgresStatement(insert, ["c"])])
                    return (0, [PostgresStatement(insert, ["a"])])
                }
            }
            let ids = try await connection.query("SELECT id FROM \(table) ORDER BY id").rows.compactMap { $0["id"] }
            #expect(ids == ["a", "b"])
            // SAVEPOINT is refused outside a transaction block: none was left open.
            let outside = await #expect(throws: PostgresError.self) { try await connection.query("SAVEPOINT probe") }
            #expect(outside?.sqlState == "25P01")
        }
    }

    /// A connection and a table of the test's own with `columns`, dropped and closed afterwards.
    /// The plan a session keeps for a prepared statement, its parameters still parameters; nothing is written,
    /// and the same connection can ask again.
    @Test func genericPlanShowsTheKeptPlanAndWritesNothing() async throws {
        try await withTable("id text PRIMARY KEY, n integer") { connection, table in
            let insert = PostgresStatement("INSERT INTO \(table) (id, n) SELECT $1, n FROM \(table) WHERE id = $2", ["a", "it's"])
            for _ in 0..<2 {
                let plan = try await connection.genericPlan(
                    of: insert, after: [PostgresStatement("SELECT set_config('enable_seqscan', 'off', true)")])
                #expect(plan.lines.first?.hasPrefix("Insert on \(table)") == true, "\(plan.text)")
                #expect(plan.lines.contains { $0.contains("Index Cond: (id = $2)") }, "\(plan.text)")
            }
            #expect(try await connection.query("SELECT count(*) AS n FROM \(table)").first?["n"] == "0")
            #expect(try await connection.query("SELECT current_setting('enable_seqscan') AS s").first?["s"] == "on")
        }
    }

    private func withTable(_ columns: String, _ body: (PostgresConnection, String) async throws -> Void) async throws {
        try await TestDatabase.withTable("pipeline", columns, body)
    }
}
