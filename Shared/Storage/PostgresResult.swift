/// What a statement returned: its rows (possibly none) and how many rows it touched.
public struct PostgresResult: Sendable {
    public let columns: [String]
    public let rows: [PostgresRow]
    /// Rows inserted, updated, deleted, selected... as the command tag says; 0 when it says nothing.
    public let affectedRows: Int
    /// The command tag, for example `INSERT 0 1` or `ROLLBACK`.
    public let commandTag: String

    public init(columns: [String], rows: [PostgresRow], affectedRows: Int, commandTag: String) {
        self.columns = columns
        self.rows = rows
        self.affectedRows = affectedRows
        self.commandTag = commandTag
    }

    public var first: PostgresRow? { rows.first }
}
