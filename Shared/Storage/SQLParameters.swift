/// Collects the values of one statement; each `bind` returns its placeholder (`$3`), so values never enter
/// the SQL text.
public struct SQLParameters: Sendable {
    public private(set) var values: [(any PostgresBindable)?]

    public init(_ initial: [(any PostgresBindable)?] = []) { values = initial }

    public mutating func bind(_ value: (any PostgresBindable)?) -> String {
        values.append(value)
        return "$\(values.count)"
    }

    /// A `text[]` parameter, written in PostgreSQL's array literal syntax with every element quoted.
    public mutating func bindTextArray(_ elements: [String]) -> String {
        bind(Self.arrayLiteral(elements)) + "::text[]"
    }

    /// `{"a","b \\"c\\""}`: every element quoted, `\\` and `"` escaped. Byte by byte, because the batched ballot
    /// statements bind thousands of elements per second and Foundation's string replacing cost most of that time.
    public static func arrayLiteral(_ elements: [String]) -> String {
        let backslash = UInt8(ascii: "\\"), quote = UInt8(ascii: "\"")
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(elements.reduce(2) { $0 + $1.utf8.count + 3 })
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(quote)
            for byte in element.utf8 {
                if byte == backslash || byte == quote { bytes.append(backslash) }
                bytes.append(byte)
            }
            bytes.append(quote)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
