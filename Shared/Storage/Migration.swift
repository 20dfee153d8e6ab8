/// One step of a schema. Versions only grow; an applied migration is never edited, a new one follows it.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    /// One or more statements. They run inside a transaction the migrator opens, so they must not
    /// manage transactions themselves (no BEGIN/COMMIT, no CREATE INDEX CONCURRENTLY).
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
