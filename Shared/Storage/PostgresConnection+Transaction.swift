extension PostgresConnection {
    /// BEGIN ... COMMIT around `body`; ROLLBACK when it throws (then rethrows).
    /// Throws 25P02 when COMMIT turned into a rollback because a statement inside failed
    /// and `body` swallowed that error.
    public func transaction<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        _ = try await query("BEGIN")
        let value: T
        do {
            value = try await body(self)
        } catch {
            if isOpen { _ = try? await query("ROLLBACK") }
            throw error
        }
        let commit = try await query("COMMIT")
        guard commit.commandTag == "COMMIT" else {
            throw PostgresError(sqlState: PostgresError.inFailedTransaction,
                                message: "the transaction was rolled back because a statement in it failed")
        }
        return value
    }
}
