/// One statement and its parameters, for `PostgresConnection.pipeline`.
public struct PostgresStatement: Sendable {
    public var sql: String
    /// Text-format values, nil for SQL NULL (as `PostgresBindable.postgresText` writes them).
    public var parameters: [String?]

    public init(_ sql: String, _ parameters: [(any PostgresBindable)?] = []) {
        self.sql = sql
        self.parameters = parameters.map { $0?.postgresText }
    }
}
