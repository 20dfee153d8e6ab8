import Foundation

/// A value that can be sent as a query parameter in PostgreSQL's text format.
/// The text travels separately from the SQL, so it is never parsed as SQL.
public protocol PostgresBindable: Sendable {
    var postgresText: String { get }
}

extension String: PostgresBindable {
    public var postgresText: String { self }
}

extension Substring: PostgresBindable {
    public var postgresText: String { String(self) }
}

extension Int: PostgresBindable {
    public var postgresText: String { String(self) }
}

extension Int64: PostgresBindable {
    public var postgresText: String { String(self) }
}

extension Int32: PostgresBindable {
    public var postgresText: String { String(self) }
}

extension Double: PostgresBindable {
    /// Swift prints the shortest text that reads back as the same Double, and PostgreSQL
    /// accepts its spellings of infinity and NaN.
    public var postgresText: String { String(self) }
}

extension Bool: PostgresBindable {
    public var postgresText: String { self ? "true" : "false" }
}

extension Date: PostgresBindable {
    /// ISO 8601 in UTC with milliseconds, the precision Parse dates carry.
    public var postgresText: String { PostgresTimestamp.format(self) }
}

extension UUID: PostgresBindable {
    public var postgresText: String { uuidString.lowercased() }
}

extension Array: PostgresBindable where Element == UInt8 {
    /// bytea in hex input format.
    public var postgresText: String { ByteaHex.encode(self) }
}

extension Data: PostgresBindable {
    public var postgresText: String { ByteaHex.encode(self) }
}
