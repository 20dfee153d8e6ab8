#if canImport(Glibc)
import Glibc
#endif

/// Bytes bound as a bytea parameter in binary format by `query(_:binary:)` and `binaryRows`: PostgreSQL takes
/// them as they are, where the text format would need hex text twice their size built here and parsed there.
/// Elsewhere it binds as hex text like `[UInt8]`.
public struct PostgresBinary: PostgresBindable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var postgresText: String { ByteaHex.encode(bytes) }

    /// A `smallint`, `integer` or `bigint` column in binary format (big-endian); nil for NULL or other sizes.
    public static func integer(_ bytes: [UInt8]?) -> Int? {
        guard let bytes, [2, 4, 8].contains(bytes.count) else { return nil }
        let unsigned = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let shift = UInt64(64 - bytes.count * 8)
        return Int(Int64(bitPattern: unsigned << shift) >> Int64(shift))
    }
}

/// One parameter as libpq takes it: text (nil for NULL) or binary.
enum PostgresParameter: Sendable {
    case text(String?)
    case binary([UInt8])

    init(_ value: (any PostgresBindable)?) {
        if let binary = value as? PostgresBinary {
            self = .binary(binary.bytes)
        } else {
            self = .text(value?.postgresText)
        }
    }

    /// Calls `body` with libpq's value, length and format arrays (C copies, valid only inside `body`).
    static func withLibPQArrays<Result>(
        _ parameters: [PostgresParameter],
        _ body: ([UnsafePointer<CChar>?], [Int32], [Int32]) throws -> Result
    ) throws -> Result {
        var copies: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        defer { copies.forEach { free($0) } }
        for parameter in parameters {
            switch parameter {
            case .text(nil):
                copies.append(nil)
                lengths.append(0)
                formats.append(0)
            case .text(let text?):
                // A C string ends at the first NUL: refuse rather than silently truncate the value.
                guard !text.utf8.contains(0) else {
                    throw PostgresError(sqlState: "22021", message: "a parameter contains a NUL character")
                }
                copies.append(strdup(text))
                lengths.append(0)
                formats.append(0)
            case .binary(let bytes):
                guard let copy = malloc(max(bytes.count, 1))?.assumingMemoryBound(to: CChar.self) else {
                    fatalError("out of memory")
                }
                bytes.withUnsafeBytes { source in
                    if let base = source.baseAddress { memcpy(copy, base, bytes.count) }
                }
                copies.append(copy)
                lengths.append(Int32(clamping: bytes.count))
                formats.append(1)
            }
        }
        return try body(copies.map { $0.map { UnsafePointer($0) } }, lengths, formats)
    }
}

/// What `LibPQSession.query(_:_:binaryResults:)` read: rows as text, or rows of columns in binary format.
enum PostgresQueryOutput: Sendable {
    case rows(PostgresResult)
    case binaryRows([[[UInt8]?]])
}
