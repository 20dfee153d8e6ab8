import Foundation

/// One row of a result, as the text PostgreSQL sent for each column (nil for SQL NULL).
public struct PostgresRow: Sendable {
    let layout: ColumnLayout
    let values: [String?]

    init(layout: ColumnLayout, values: [String?]) {
        self.layout = layout
        self.values = values
    }

    /// A row built by hand, for test doubles of code that reads results.
    public init(columns: [String], values: [String?]) {
        self.init(layout: ColumnLayout(names: columns), values: values)
    }

    public var columns: [String] { layout.names }

    /// Nil for SQL NULL and for a column the result does not have.
    public subscript(_ column: String) -> String? {
        guard let index = layout.index(of: column) else { return nil }
        return values[index]
    }

    /// Nil for SQL NULL and for an index past the last column.
    public subscript(_ index: Int) -> String? {
        values.indices.contains(index) ? values[index] : nil
    }

    public func int(_ column: String) -> Int? { self[column].flatMap { Int($0) } }

    public func double(_ column: String) -> Double? { self[column].flatMap { Double($0) } }

    /// Reads PostgreSQL's boolean output (`t`/`f`) and the spelled-out forms.
    public func bool(_ column: String) -> Bool? {
        switch self[column] {
        case "t", "true": true
        case "f", "false": false
        default: nil
        }
    }

    /// Decodes bytea hex output (`\x0a1b...`).
    public func bytes(_ column: String) -> [UInt8]? { self[column].flatMap(ByteaHex.decode) }

    /// Reads `timestamptz`/`timestamp` output in the default ISO DateStyle; a value without a zone is UTC.
    public func date(_ column: String) -> Date? { self[column].flatMap(PostgresTimestamp.parse) }
}

/// Column names and a name-to-position map, shared by every row of one result.
final class ColumnLayout: Sendable {
    let names: [String]
    private let positions: [String: Int]

    init(names: [String]) {
        self.names = names
        // With duplicate names the first column wins, as in most SQL client libraries.
        var positions: [String: Int] = [:]
        for (index, name) in names.enumerated() where positions[name] == nil {
            positions[name] = index
        }
        self.positions = positions
    }

    func index(of name: String) -> Int? { positions[name] }
}
