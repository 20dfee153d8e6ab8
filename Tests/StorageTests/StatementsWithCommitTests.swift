import Storage
import Testing

/// `sendWithCommit` holds a statement for its transaction's COMMIT and sends it in that round trip: never when
/// the transaction rolls back, its failure the commit's, and at once outside a transaction.
@Suite(.enabled(if: TestDatabase.isConfigured))
struct StatementsWithCommitTests {
    struct Refused: Error {}

    private func withTable(_ body: (PostgresConnection, String) async throws -> Void) async throws {
        try await TestDatabase.withTable("held", "id text PRIMARY KEY", body)
    }

    private func ids(_ connection: PostgresConnection, _ table: String) async throws -> [String] {
        try await connection.query("SELECT id FROM \(table) ORDER BY id").rows.compactMap { $0["id"] }
    }

    private func insert(_ table: String, _ id: String) -> PostgresStatement {
        PostgresStatement("INSERT INTO \(table) VALUES ($1)", [id])
    }

    @Test func aHeldStatementGoesWithTheCommit() async throws {
        try await withTable { connection, table in
            try await connection.transaction { connection in
                _ = try await connection.query("INSERT INTO \(table) VALUES ($1)", ["a"])
                try await connection.sendWithCommit(insert(table, "b"))
                #expect(try await ids(connection, table) == ["a"])
            }
            #expect(try await ids(connection, table) == ["a", "b"])
            _ = try await connection.pipelinedTransaction { connection, opening in
                try await connection.sendWithCommit(insert(table, "c"))
                return (0, opening + [insert(table, "d")])
            }
            #expect(try await ids(connection, table) == ["a", "b", "c", "d"])
            try await connection.sendWithCommit(insert(table, "e"))
            #expect(try await ids(connection, table) == ["a", "b", "c", "d", "e"])
        }
    }

    @Test func aRollbackDropsTheHeldStatement() async throws {
        try await withTable { connection, table in
            await #expect(throws: Refused.self) {
                try await connection.transaction { connection in
                    _ = try await connection.query("INSERT INTO \(table) VALUES ($1)", ["a"])
                    try await connection.sendWithCommit(insert(table, "b"))
                    throw Refused()
                }
            }
            try await connection.transaction { connection in
                try await connection.sendWithCommit(insert(table, "c"))
            }
            #expect(try await ids(connection, table) == ["c"])
        }
    }

    @Test func aFailingHeldStatementRollsTheTransactionBack() async throws {
        try await withTable { connection, table in
            await #expect(throws: PostgresError.self) {
                try await connection.transaction { connection in
                    _ = try await connection.query("INSERT INTO \(table) VALUES ($1)", ["a"])
                    try await connection.sendWithCommit(insert(table, "a"))
                }
            }
            #expect(try await ids(connection, table).isEmpty)
            // The session is out of the aborted transaction: the next statement runs and commits.
            _ = try await connection.query("INSERT INTO \(table) VALUES ($1)", ["z"])
            #expect(try await ids(connection, table) == ["z"])
        }
    }

    /// A body that only holds statements still runs the transaction's check first, in the same round trip.
    @Test func aBodyThatOnlyHoldsStatementsIsChecked() async throws {
        try await withTable { connection, table in
            let refusing = TransactionCheck(PostgresStatement("SELECT 1 AS one")) { _ in throw Refused() }
            await #expect(throws: Refused.self) {
                try await TransactionCheck.$current.withValue(refusing) {
                    try await connection.transaction { try await $0.sendWithCommit(insert(table, "a")) }
                }
            }
            let passing = TransactionCheck(PostgresStatement("SELECT 1 AS one")) { _ in }
            try await TransactionCheck.$current.withValue(passing) {
                try await connection.transaction { try await $0.sendWithCommit(insert(table, "b")) }
            }
            #expect(try await ids(connection, table) == ["b"])
        }
    }
}
