/// PostgreSQL's text form of one-dimensional arrays, both ways: literals to bind a list as one parameter
/// (`$1::text[]`) and the text PostgreSQL prints for an array column.
public enum PostgresArray {
    /// `{"a","b \"c\"",NULL}`: every element quoted, `\` and `"` escaped, nil as SQL NULL. On bytes, because the
    /// batched ballot statements bind thousands of elements per second and Foundation's string replacing cost most
    /// of that time.
    public static func literal(_ elements: [String?]) -> String {
        quoted(elements.count, size: elements.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 }) { elements[$0] }
    }

    public static func literal(_ elements: [String]) -> String {
        quoted(elements.count, size: elements.reduce(2) { $0 + $1.utf8.count + 3 }) { elements[$0] }
    }

    private static func quoted(_ count: Int, size: Int, _ element: (Int) -> String?) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(size)
        for index in 0..<count {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            guard let element = element(index) else {
                bytes += "NULL".utf8
                continue
            }
            bytes.append(quote)
            appendEscaped(element, to: &bytes)
            bytes.append(quote)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The element's bytes with `\` before each `\` and `"`, copied in runs: the ledger binds whole event texts,
    /// full of quotes, and appending them byte by byte showed in the votes service's profile.
    private static func appendEscaped(_ element: String, to bytes: inout [UInt8]) {
        var element = element
        element.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte == backslash || byte == quote {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                bytes.append(backslash)
                start = index
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
    }

    /// `{1,2.5,NULL}` for `double precision[]` or `bigint[]`: numbers need no quotes.
    public static func literal(numbers: [Double?]) -> String {
        "{" + numbers.map { $0.map { String($0) } ?? "NULL" }.joined(separator: ",") + "}"
    }

    public static func literal(numbers: [Double]) -> String { literal(numbers: numbers.map(Optional.some)) }

    public static func literal(numbers: [Int?]) -> String {
        "{" + numbers.map { $0.map { String($0) } ?? "NULL" }.joined(separator: ",") + "}"
    }

    /// Reads an array as PostgreSQL prints it (`{a,"b c","d\"e",NULL}`): an element is quoted when it holds a
    /// brace, comma, quote, backslash or space, is empty, or reads `NULL`; an unquoted `NULL` is SQL NULL. Also
    /// takes the spaces around elements and the backslash escapes outside quotes that PostgreSQL's input accepts.
    /// Nil for anything else: nested or bounded (`[0:1]={...}`) arrays, a missing brace or quote.
    public static func parse(_ text: String) -> [String?]? {
        var parser = ArrayTextParser(Array(text.utf8))
        return parser.parse()
    }

    /// `parse` for a column whose elements are never NULL (the ACL columns): a NULL element is left out, and a text
    /// that is not an array reads as no elements.
    public static func strings(_ text: String) -> [String] {
        parse(text)?.compactMap { $0 } ?? []
    }

    static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
}

/// The cursor behind `PostgresArray.parse`.
private struct ArrayTextParser {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func parse() -> [String?]? {
        skipSpaces()
        guard take(UInt8(ascii: "{")) else { return nil }
        var elements: [String?] = []
        skipSpaces()
        if take(UInt8(ascii: "}")) { return finished() ? elements : nil }
        repeat {
            skipSpaces()
            guard let element = element() else { return nil }
            elements.append(element)
            skipSpaces()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { return nil }
        return finished() ? elements : nil
    }

    /// One element: `.some(nil)` for NULL, nil when malformed.
    private mutating func element() -> String?? {
        guard index < bytes.count else { return nil }
        if take(PostgresArray.quote) {
            var value: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == PostgresArray.quote { return .some(String(decoding: value, as: UTF8.self)) }
                if byte == PostgresArray.backslash {
                    guard index < bytes.count else { return nil }
                    value.append(bytes[index])
                    index += 1
                } else {
                    value.append(byte)
                }
            }
            return nil
        }
        var value: [UInt8] = []
        var escaped = false
        var trailingSpaces = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") { break }
            if byte == UInt8(ascii: "{") || byte == PostgresArray.quote { return nil }
            index += 1
            if byte == PostgresArray.backslash {
                guard index < bytes.count else { return nil }
                value.append(bytes[index])
                index += 1
                escaped = true
                trailingSpaces = 0
            } else {
                value.append(byte)
                trailingSpaces = Self.isSpace(byte) ? trailingSpaces + 1 : 0
            }
        }
        value.removeLast(trailingSpaces)
        guard !value.isEmpty else { return nil }
        let text = String(decoding: value, as: UTF8.self)
        if !escaped && text.uppercased() == "NULL" { return .some(nil) }
        return .some(text)
    }

    private mutating func finished() -> Bool {
        skipSpaces()
        return index == bytes.count
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpaces() {
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }
}
