/// Hand-written JSON for the texts written on every ballot (the voter in the ledger, the events): Foundation's
/// JSONEncoder was the largest single cost of the votes process. Keys are written in the order given; callers
/// give them sorted, as the encoder wrote them.
struct JSONText {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// `{"a":..,"b":..}`: `body` adds the members with `member`.
    mutating func object(_ body: (inout JSONText) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        body(&self)
        if bytes.last == UInt8(ascii: ",") { bytes.removeLast() }
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func member(_ key: String, _ value: (inout JSONText) -> Void) {
        string(key)
        bytes.append(UInt8(ascii: ":"))
        value(&self)
        bytes.append(UInt8(ascii: ","))
    }

    mutating func member(_ key: String, string value: String?) {
        member(key) { json in
            if let value { json.string(value) } else { json.null() }
        }
    }

    mutating func member(_ key: String, number value: Double) { member(key) { $0.number(value) } }

    mutating func member(_ key: String, bool value: Bool) {
        member(key) { $0.bytes.append(contentsOf: (value ? "true" : "false").utf8) }
    }

    mutating func member(_ key: String, strings values: [String]) {
        member(key) { json in
            json.bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { json.bytes.append(UInt8(ascii: ",")) }
                json.string(value)
            }
            json.bytes.append(UInt8(ascii: "]"))
        }
    }

    mutating func null() { bytes.append(contentsOf: "null".utf8) }

    /// Whole numbers without a fraction, as JavaScript prints them.
    mutating func number(_ value: Double) {
        bytes.append(contentsOf: AppliedBallot.number(value).utf8)
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\u00XX`; `/` and non-ASCII as they are.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(Self.hex[Int(byte >> 4)])
                bytes.append(Self.hex[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hex = Array("0123456789abcdef".utf8)
}
