/// JSON text to a `JSONTree` (`JSONValue`, or `JSONNode` for the messages' decoder), written by hand: every request
/// parses its command, its body and the ACLs of the rows it reads, and going through `JSONDecoder` made each value
/// try every type in turn (a thrown error per miss).
/// Accepts what JavaScript's `JSON.parse` accepts, as parse-server reads bodies with it, except that a string
/// with a lone surrogate (`"\ud800"`), which a Swift string cannot hold, reads as U+FFFD, like invalid UTF-8.
struct JSONParser<Tree: JSONTree> {
    /// Deeper nesting is refused rather than risking the stack (Foundation's decoder stops at 512 too).
    static var maxDepth: Int { 512 }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private struct Malformed: Error {
        /// Set for a number literal beyond a double's range (`1e999999`): JavaScript reads it as `Infinity`, which no
        /// Parse type holds and no JSON answer can carry.
        var numberOutOfRange = false
    }

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Tree? {
        try? parseReporting(bytes).get()
    }

    /// `parse`, with what was wrong.
    static func parseReporting(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Tree, JSONSyntaxError> {
        var parser = JSONParser(bytes)
        do {
            let value = try parser.value()
            parser.skipWhitespace()
            return parser.index == bytes.count ? .success(value) : .failure(.malformed)
        } catch {
            return .failure(error.numberOutOfRange ? .numberOutOfRange : .malformed)
        }
    }

    private mutating func value() throws(Malformed) -> Tree {
        skipWhitespace()
        guard index < bytes.count else { throw Malformed() }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try object())
        case UInt8(ascii: "["): return .array(try array())
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    private mutating func object() throws(Malformed) -> Tree.Members {
        try enter()
        var fields = Tree.noMembers()
        skipWhitespace()
        if take(UInt8(ascii: "}")) { depth -= 1; return fields }
        repeat {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Malformed() }
            let key = try string()
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { throw Malformed() }
            Tree.add(key, try value(), to: &fields)
            skipWhitespace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { throw Malformed() }
        depth -= 1
        return fields
    }

    private mutating func array() throws(Malformed) -> [Tree] {
        try enter()
        var items: [Tree] = []
        skipWhitespace()
        if take(UInt8(ascii: "]")) { depth -= 1; return items }
        repeat {
            items.append(try value())
            skipWhitespace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")) else { throw Malformed() }
        depth -= 1
        return items
    }

    /// Steps over the opening bracket.
    private mutating func enter() throws(Malformed) {
        depth += 1
        guard depth <= Self.maxDepth else { throw Malformed() }
        index += 1
    }

    /// A string, from its opening quote: runs without escapes are decoded in one piece.
    private mutating func string() throws(Malformed) -> String {
        index += 1
        var start = index
        var pieces: [UInt8] = []
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let tail = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                guard escaped else { return String(decoding: tail, as: UTF8.self) }
                pieces.append(contentsOf: tail)
                return String(decoding: pieces, as: UTF8.self)
            }
            if byte < 0x20 { throw Malformed() }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                pieces.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                index += 1
                try escape(into: &pieces)
                start = index
                continue
            }
            index += 1
        }
        throw Malformed()
    }

    /// One escape, after its backslash, appended as UTF-8.
    private mutating func escape(into output: inout [UInt8]) throws(Malformed) {
        guard index < bytes.count else { throw Malformed() }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar), index + 1 < bytes.count,
               bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                let mark = index
                index += 2
                let low = try hex4()
                if (0xDC00..<0xE000).contains(low) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    index = mark
                }
            }
            output.append(contentsOf: Array(String(Unicode.Scalar(scalar) ?? "\u{FFFD}").utf8))
        default:
            throw Malformed()
        }
    }

    private mutating func hex4() throws(Malformed) -> UInt32 {
        guard index + 4 <= bytes.count else { throw Malformed() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Malformed()
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`, checked here; whole numbers of up to 15 digits are
    /// converted directly, the others by the standard library's correctly rounded conversion.
    private mutating func number() throws(Malformed) -> Double {
        let start = index
        let negative = take(UInt8(ascii: "-"))
        guard index < bytes.count, isDigit(bytes[index]) else { throw Malformed() }
        var whole: Int64 = 0
        var digits = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                if digits < 18 { whole = whole * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
        }
        var plain = true
        if take(UInt8(ascii: ".")) {
            plain = false
            try digitRun()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            plain = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            try digitRun()
        }
        if plain && digits <= 15 { return negative ? -Double(whole) : Double(whole) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = Double(text) else { throw Malformed() }
        guard number.isFinite else { throw Malformed(numberOutOfRange: true) }
        return number
    }

    private mutating func digitRun() throws(Malformed) {
        guard index < bytes.count, isDigit(bytes[index]) else { throw Malformed() }
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func literal(_ word: StaticString) throws(Malformed) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw Malformed() }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw Malformed() }
        index += count
    }

    /// Steps over `byte` when it comes next.
    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}

/// Why a text is not JSON a request may carry.
public enum JSONSyntaxError: Error, Sendable, Equatable {
    case malformed
    /// A number beyond a double's range: `1e999999`.
    case numberOutOfRange

    /// The client's `{"code":107,...}`, saying what is wrong.
    public var parseError: ParseError {
        switch self {
        case .malformed: ParseError(.invalidJSON, "Invalid JSON")
        case .numberOutOfRange:
            ParseError(.invalidJSON, "Invalid JSON: a number is out of range; numbers must be finite, at most "
                       + "1.7976931348623157e308 either side of 0.")
        }
    }
}
