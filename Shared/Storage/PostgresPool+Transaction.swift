extension PostgresPool {
    /// BEGIN ... COMMIT on one connection, ROLLBACK when the closure throws (then rethrows).
    public func transaction<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { try await $0.transaction(body) }
    }
}
