/// What a command handler needs of its service's database: statements with parameters, and a transaction scope
/// whose statements all run on one session and commit together. `PostgresPool` is the real one (any free
/// connection; a transaction holds one for its scope), `PostgresConnection` the session inside a transaction;
/// unit tests give handlers a double that answers the statements they expect (`ScriptedDatabase`, `TestDoubles`).
public protocol Database: Sendable {
    /// One statement; `parameters` are `$1`, `$2`... (nil is SQL NULL), never spliced into the SQL text.
    func query(_ sql: String, _ parameters: [(any PostgresBindable)?]) async throws -> PostgresResult

    /// BEGIN ... COMMIT around `body`, whose statements go to the session it is given; ROLLBACK when it throws
    /// (then rethrows).
    func inTransaction<T: Sendable>(_ body: @Sendable (any Database) async throws -> T) async throws -> T
}

extension PostgresPool: Database {
    public func inTransaction<T: Sendable>(_ body: @Sendable (any Database) async throws -> T) async throws -> T {
        try await transaction { connection in try await body(connection) }
    }
}

extension PostgresConnection: Database {
    /// On a connection already inside a transaction, `body` joins it: PostgreSQL has no nested transactions.
    public func inTransaction<T: Sendable>(_ body: @Sendable (any Database) async throws -> T) async throws -> T {
        if isInTransaction { return try await body(self) }
        return try await transaction { connection in try await body(connection) }
    }
}
