/// Writes a JSON object member by member, straight into bytes, for texts written on every vote (the voter in the
/// votes ledger, the vote events): building a `JSONValue` first, or Foundation's JSONEncoder, cost more than the rest of
/// the ballot. Strings and numbers are written as `JSONText` writes them. Keys are written in the order given;
/// callers give them sorted, as `JSONText` and `Outbox.add` sort them.
public struct JSONObjectWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// `{"a":..,"b":..}`: `body` adds the members with `member`.
    public mutating func object(_ body: (inout JSONObjectWriter) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        body(&self)
        if bytes.last == UInt8(ascii: ",") { bytes.removeLast() }
        bytes.append(UInt8(ascii: "}"))
    }

    public mutating func member(_ key: String, _ value: (inout JSONObjectWriter) -> Void) {
        string(key)
        bytes.append(UInt8(ascii: ":"))
        value(&self)
        bytes.append(UInt8(ascii: ","))
    }

    public mutating func member(_ key: String, string value: String?) {
        member(key) { json in
            if let value { json.string(value) } else { json.null() }
        }
    }

    public mutating func member(_ key: String, number value: Double) { member(key) { $0.number(value) } }

    public mutating func member(_ key: String, bool value: Bool) {
        member(key) { $0.bytes.append(contentsOf: (value ? "true" : "false").utf8) }
    }

    public mutating func member(_ key: String, strings values: [String]) {
        member(key) { json in
            json.bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { json.bytes.append(UInt8(ascii: ",")) }
                json.string(value)
            }
            json.bytes.append(UInt8(ascii: "]"))
        }
    }

    public mutating func null() { bytes.append(contentsOf: "null".utf8) }

    public mutating func number(_ value: Double) { bytes.append(contentsOf: JSONText.format(value).utf8) }

    public mutating func string(_ value: String) { JSONText.writeString(value, into: &bytes) }
}
