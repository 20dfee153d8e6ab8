/// Splits a GraphQL document into tokens (the specification's "Source Text" and "Lexical Tokens"), skipping what
/// it ignores: a byte order mark, white space, line terminators, comments and commas. Works on the UTF-8 bytes;
/// columns count Unicode scalars (graphql-js counts UTF-16 units, one more for each character outside the Basic
/// Multilingual Plane before the position on its line).
struct GraphQLLexer {
    private let bytes: [UInt8]
    private var offset = 0
    private var line = 1
    /// Offset of the current line's first byte, for columns.
    private var lineStart = 0
    /// A position on the current line whose column is known: columns are counted from there, so a document on one
    /// long line costs one pass, not one per token.
    private var columnMark = (offset: 0, column: 1)

    init(_ source: String) {
        bytes = Array(source.utf8)
    }

    /// The next token; `.endOfFile` at the end, and again after it.
    mutating func next() throws(GraphQLSyntaxError) -> GraphQLToken {
        skipIgnored()
        let location = here
        guard offset < bytes.count else { return GraphQLToken(kind: .endOfFile, value: "", location: location) }
        let byte = bytes[offset]
        if let kind = Self.punctuators[byte] {
            offset += 1
            return GraphQLToken(kind: kind, value: "", location: location)
        }
        switch byte {
        case UInt8(ascii: "."):
            guard offset + 2 < bytes.count, bytes[offset + 1] == byte, bytes[offset + 2] == byte else {
                throw GraphQLSyntaxError("Unexpected character: \".\".", at: location)
            }
            offset += 3
            return GraphQLToken(kind: .spread, value: "", location: location)
        case UInt8(ascii: "\""):
            if offset + 2 < bytes.count, bytes[offset + 1] == byte, bytes[offset + 2] == byte {
                return GraphQLToken(kind: .blockString, value: try blockString(), location: location)
            }
            return GraphQLToken(kind: .string, value: try string(), location: location)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number(at: location)
        default:
            guard Self.isNameStart(byte) else {
                throw GraphQLSyntaxError("Unexpected character: \(describeCharacter(at: offset)).", at: location)
            }
            let start = offset
            while offset < bytes.count, Self.isNameContinue(bytes[offset]) { offset += 1 }
            return GraphQLToken(kind: .name, value: text(start, offset), location: location)
        }
    }

    // MARK: - Ignored tokens

    private mutating func skipIgnored() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x09, 0x20, UInt8(ascii: ","):
                offset += 1
            case 0x0A:
                offset += 1
                newLine()
            case 0x0D:
                offset += 1
                if offset < bytes.count, bytes[offset] == 0x0A { offset += 1 }
                newLine()
            case 0xEF where offset + 2 < bytes.count && bytes[offset + 1] == 0xBB && bytes[offset + 2] == 0xBF:
                offset += 3  // U+FEFF, the byte order mark
            case UInt8(ascii: "#"):
                while offset < bytes.count, bytes[offset] != 0x0A, bytes[offset] != 0x0D { offset += 1 }
            default:
                return
            }
        }
    }

    private mutating func newLine() {
        line += 1
        lineStart = offset
        columnMark = (offset, 1)
    }

    private var here: GraphQLLocation {
        mutating get { location(at: offset) }
    }

    /// `position` on the current line.
    private mutating func location(at position: Int) -> GraphQLLocation {
        var (index, column) = position >= columnMark.offset ? columnMark : (lineStart, 1)
        while index < position {
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        if position >= columnMark.offset { columnMark = (position, column) }
        return GraphQLLocation(line: line, column: column)
    }

    // MARK: - Numbers

    /// `IntValue` and `FloatValue`: neither may be followed by a digit, a `.` or a name's first character.
    private mutating func number(at location: GraphQLLocation) throws(GraphQLSyntaxError) -> GraphQLToken {
        let start = offset
        var isFloat = false
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "0") {
            offset += 1
            if offset < bytes.count, Self.isDigit(bytes[offset]) {
                throw GraphQLSyntaxError("Invalid number, unexpected digit after 0: \(describeCharacter(at: offset)).",
                                         at: self.location(at: offset))
            }
        } else {
            try digits()
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            isFloat = true
            offset += 1
            try digits()
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            isFloat = true
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            try digits()
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") || Self.isNameStart(bytes[offset]) {
            throw GraphQLSyntaxError("Invalid number, expected digit but got: \(describeCharacter(at: offset)).",
                                     at: self.location(at: offset))
        }
        return GraphQLToken(kind: isFloat ? .float : .int, value: text(start, offset), location: location)
    }

    private mutating func digits() throws(GraphQLSyntaxError) {
        guard offset < bytes.count, Self.isDigit(bytes[offset]) else {
            throw GraphQLSyntaxError("Invalid number, expected digit but got: \(describeCharacter(at: offset)).",
                                     at: location(at: offset))
        }
        while offset < bytes.count, Self.isDigit(bytes[offset]) { offset += 1 }
    }

    // MARK: - Strings

    /// `"..."`: escapes resolved; no line terminator or other control character inside but a tab.
    private mutating func string() throws(GraphQLSyntaxError) -> String {
        offset += 1
        var value: [UInt8] = []
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                offset += 1
                return String(decoding: value, as: UTF8.self)
            }
            if byte == 0x0A || byte == 0x0D { break }
            if byte == UInt8(ascii: "\\") {
                try escape(into: &value)
                continue
            }
            if byte < 0x20, byte != 0x09 {
                throw GraphQLSyntaxError("Invalid character within String: \(describeCharacter(at: offset)).", at: here)
            }
            value.append(byte)
            offset += 1
        }
        throw GraphQLSyntaxError("Unterminated string.", at: here)
    }

    private mutating func escape(into value: inout [UInt8]) throws(GraphQLSyntaxError) {
        let start = offset
        guard offset + 1 < bytes.count else { throw GraphQLSyntaxError("Unterminated string.", at: here) }
        let simple: [UInt8: UInt8] = [UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F,
                                      UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A,
                                      UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09]
        if let replacement = simple[bytes[offset + 1]] {
            value.append(replacement)
            offset += 2
            return
        }
        guard bytes[offset + 1] == UInt8(ascii: "u") else {
            throw GraphQLSyntaxError("Invalid character escape sequence: \"\(text(start, min(offset + 2, bytes.count)))\".",
                                     at: location(at: start))
        }
        offset += 2
        var scalar: UInt32
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "{") {
            // `\u{1F600}`: any scalar value, written with at most what one needs.
            offset += 1
            scalar = 0
            var count = 0
            while offset < bytes.count, let digit = Self.hexValue(bytes[offset]), count < 8 {
                scalar = scalar << 4 | digit
                offset += 1
                count += 1
            }
            guard count > 0, offset < bytes.count, bytes[offset] == UInt8(ascii: "}"), Unicode.Scalar(scalar) != nil else {
                throw invalidUnicodeEscape(from: start)
            }
            offset += 1
        } else {
            guard let unit = fourHexDigits() else { throw invalidUnicodeEscape(from: start) }
            scalar = unit
            if (0xD800...0xDBFF).contains(unit) {
                // A leading surrogate counts only with its trailing one, written as the next escape.
                guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
                else { throw invalidUnicodeEscape(from: start) }
                offset += 2
                guard let trailing = fourHexDigits(), (0xDC00...0xDFFF).contains(trailing) else {
                    throw invalidUnicodeEscape(from: start)
                }
                scalar = 0x10000 + ((unit - 0xD800) << 10) + (trailing - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw invalidUnicodeEscape(from: start)
            }
        }
        guard let character = Unicode.Scalar(scalar) else { throw invalidUnicodeEscape(from: start) }
        value.append(contentsOf: Array(String(Character(character)).utf8))
    }

    private mutating func fourHexDigits() -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        var unit: UInt32 = 0
        for index in offset..<offset + 4 {
            guard let digit = Self.hexValue(bytes[index]) else { return nil }
            unit = unit << 4 | digit
        }
        offset += 4
        return unit
    }

    private mutating func invalidUnicodeEscape(from start: Int) -> GraphQLSyntaxError {
        var end = start + 2
        while end < bytes.count, end < start + 12, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") {
            end += 1
        }
        return GraphQLSyntaxError("Invalid Unicode escape sequence: \"\(text(start, min(end, bytes.count)))\".",
                                  at: location(at: start))
    }

    /// `"""..."""`: only `\"""` is an escape; line terminators are kept, then the common indentation and the blank
    /// first and last lines are removed (`BlockString.value`).
    private mutating func blockString() throws(GraphQLSyntaxError) -> String {
        offset += 3
        var raw: [UInt8] = []
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\""), offset + 2 < bytes.count, bytes[offset + 1] == byte, bytes[offset + 2] == byte {
                offset += 3
                return BlockString.value(String(decoding: raw, as: UTF8.self))
            }
            if byte == UInt8(ascii: "\\"), offset + 3 < bytes.count, bytes[offset + 1] == UInt8(ascii: "\""),
               bytes[offset + 2] == UInt8(ascii: "\""), bytes[offset + 3] == UInt8(ascii: "\"") {
                raw += Array("\"\"\"".utf8)
                offset += 4
                continue
            }
            if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D {
                throw GraphQLSyntaxError("Invalid character within String: \(describeCharacter(at: offset)).", at: here)
            }
            raw.append(byte)
            offset += 1
            if byte == 0x0A || (byte == 0x0D && !(offset < bytes.count && bytes[offset] == 0x0A)) { newLine() }
        }
        throw GraphQLSyntaxError("Unterminated string.", at: here)
    }

    // MARK: - Characters

    private static let punctuators: [UInt8: GraphQLToken.Kind] = [
        UInt8(ascii: "!"): .bang, UInt8(ascii: "$"): .dollar, UInt8(ascii: "&"): .ampersand,
        UInt8(ascii: "("): .parenLeft, UInt8(ascii: ")"): .parenRight, UInt8(ascii: ":"): .colon,
        UInt8(ascii: "="): .equals, UInt8(ascii: "@"): .at, UInt8(ascii: "["): .bracketLeft,
        UInt8(ascii: "]"): .bracketRight, UInt8(ascii: "{"): .braceLeft, UInt8(ascii: "|"): .pipe,
        UInt8(ascii: "}"): .braceRight,
    ]

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isNameContinue(_ byte: UInt8) -> Bool { isNameStart(byte) || isDigit(byte) }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private func text(_ start: Int, _ end: Int) -> String { String(decoding: bytes[start..<end], as: UTF8.self) }

    /// The character at `position` as graphql-js quotes it: printable ones in quotes, others as `U+XXXX`.
    private func describeCharacter(at position: Int) -> String {
        guard position < bytes.count else { return "<EOF>" }
        var end = position + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        guard let scalar = String(decoding: bytes[position..<end], as: UTF8.self).unicodeScalars.first else { return "<EOF>" }
        if scalar.value >= 0x20, scalar.value != 0x7F {
            return scalar == "\"" ? "'\"'" : "\"\(Character(scalar))\""
        }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
