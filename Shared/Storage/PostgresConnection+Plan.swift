extension PostgresConnection {
    /// `EXPLAIN` of `statement`'s generic plan: the plan a session keeps for a prepared statement
    /// once it stops planning it afresh, which `EXPLAIN` of the bare statement does not show (that plans it with its
    /// values). `prelude` runs first, in the same transaction (settings a service makes for its statements with
    /// `set_config(..., true)`); the transaction is rolled back, so nothing the statement would write is written.
    public func genericPlan(of statement: PostgresStatement, after prelude: [PostgresStatement] = []) async throws -> PostgresPlan {
        let name = "generic_plan_of_statement"
        let arguments = statement.parameters.map { value in value.map { "'" + Self.quoted($0) + "'" } ?? "NULL" }
        _ = try await query("BEGIN")
        do {
            _ = try await pipeline([PostgresStatement("SELECT set_config('plan_cache_mode', 'force_generic_plan', true)")]
                                   + prelude + [PostgresStatement("PREPARE \(name) AS \(statement.sql)")])
            let plan = try await query(
                "EXPLAIN EXECUTE \(name)" + (arguments.isEmpty ? "" : "(\(arguments.joined(separator: ", ")))"))
            _ = try await query("ROLLBACK")
            _ = try await query("DEALLOCATE \(name)")
            return PostgresPlan(lines: plan.rows.compactMap { $0[0] })
        } catch {
            // A prepared statement outlives the transaction: drop it too, so the next call can prepare its own.
            if isOpen {
                _ = try? await query("ROLLBACK")
                _ = try? await query("DEALLOCATE \(name)")
            }
            throw error
        }
    }

    /// The text of a string literal's contents: quotes doubled.
    private static func quoted(_ text: String) -> String {
        var quoted = ""
        for character in text {
            if character == "'" { quoted.append("'") }
            quoted.append(character)
        }
        return quoted
    }
}
