import ParseWire

/// Writes a JSON object member by member, straight into bytes, for the texts written on every ballot (the voter in
/// the ledger, the events): building a `JSONValue` first, or Foundation's JSONEncoder, cost more than the rest of
/// the ballot. Strings and numbers are written as `JSONText` writes them. Keys are written in the order given;
/// callers give them sorted, as `JSONText` and `Outbox.add` sort them.
struct JSONObjectWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// `{"a":..,"b":..}`: `body` adds the members with `member`.
    mutating func object(_ body: (inout JSONObjectWriter) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        body(&self)
        if bytes.last == UInt8(ascii: ",") { bytes.removeLast() }
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func member(_ key: String, _ value: (inout JSONObjectWriter) -> Void) {
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

    mutating func number(_ value: Double) { bytes.append(contentsOf: JSONText.format(value).utf8) }

    mutating func string(_ value: String) { JSONText.writeString(value, into: &bytes) }
}
