import Foundation
import Runtime

/// One value being encoded, written straight into the text's shared `JSONOutput`. An object's members are written
/// with their keys as they come; when the value is done (`finish`), members that came out of key order are put in
/// order, and members that came in order (the usual case for a type whose `CodingKeys` are listed in key order)
/// stay where they are. A container handed out for later (`nestedContainer`, `superEncoder`) writes into an
/// output of its own, copied in then.
final class ValueEncoding: Encoder, CodingPathHolder {
    enum Shape { case none, single, object, array }

    let output: JSONOutput
    let link: CodingPathLink
    // Used by one encoding on one thread, as `JSONOutput.bytes`.
    @exclusivity(unchecked) private var shape = Shape.none
    /// Where this value's text starts in the output.
    @exclusivity(unchecked) private var start = 0
    /// Where this object's members start in the output's stack of members.
    @exclusivity(unchecked) private var membersStart = 0
    @exclusivity(unchecked) private(set) var itemCount = 0
    @exclusivity(unchecked) private var deferredItems: [(offset: Int, encoder: ValueEncoding)] = []

    init(output: JSONOutput, path: CodingPathLink) {
        self.output = output
        link = path
    }

    var codingPath: [any CodingKey] { link.path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// A second request for a keyed container adds to the first, as with Foundation's encoder.
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        begin(.object)
        return KeyedEncodingContainer(KeyedValueEncoding<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        begin(.array)
        return UnkeyedValueEncoding(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueEncoding(encoder: self) }

    private func begin(_ wanted: Shape) {
        guard shape != wanted else { return }
        precondition(shape == .none, "a value asked for a \(wanted) container after writing as a \(shape)")
        shape = wanted
        start = output.bytes.count
        membersStart = output.members.count
        output.bytes.append(wanted == .array ? UInt8(ascii: "[") : UInt8(ascii: "{"))
    }

    func beginSingle() {
        precondition(shape == .none, "a value encoded twice")
        shape = .single
    }

    // MARK: members and items

    /// Writes the next member's key (and the comma before it); answers where the member starts.
    func beginMember(_ key: String) -> Int {
        if output.members.count > membersStart { output.bytes.append(UInt8(ascii: ",")) }
        let start = output.bytes.count
        JSONEscaping.write(key, into: &output.bytes)
        output.bytes.append(UInt8(ascii: ":"))
        return start
    }

    func endMember(_ key: String, from start: Int) {
        output.members.append(JSONOutput.Member(key: key, start: start, end: output.bytes.count, deferred: nil))
    }

    /// Starts the next item of an array and answers its index.
    func beginItem() -> Int {
        if itemCount > 0 { output.bytes.append(UInt8(ascii: ",")) }
        itemCount += 1
        return itemCount - 1
    }

    /// A container for a member written later.
    func deferredMember(_ key: any CodingKey) -> ValueEncoding {
        let nested = ValueEncoding(output: JSONOutput(capacity: 64), path: .fixed(codingPath + [key]))
        output.members.append(JSONOutput.Member(key: key.stringValue, start: 0, end: 0, deferred: nested))
        return nested
    }

    /// A container for the next item, written later.
    func deferredItem() -> ValueEncoding {
        let index = beginItem()
        let nested = ValueEncoding(output: JSONOutput(capacity: 64), path: .fixed(codingPath + [JSONCodingKey(index: index)]))
        deferredItems.append((output.bytes.count, nested))
        return nested
    }

    /// Completes this value's text: a value that asked for no container is an empty object, as Foundation writes it.
    func finish() {
        switch shape {
        case .none: output.bytes += "{}".utf8
        case .single: break
        case .object: finishObject()
        case .array:
            output.bytes.append(UInt8(ascii: "]"))
            for (offset, nested) in deferredItems.reversed() {
                nested.finish()
                output.bytes.insert(contentsOf: nested.output.bytes, at: offset)
            }
        }
    }

    /// Closes the object. Members already in strictly increasing key order stay as written; otherwise the members
    /// are rewritten in key order, and of a key written twice, the last value counts.
    private func finishObject() {
        defer { output.members.removeSubrange(membersStart...) }
        if membersInOrder() {
            output.bytes.append(UInt8(ascii: "}"))
            return
        }
        var order = Array(membersStart..<output.members.count)
        order.sort { [output] in
            let (a, b) = (output.members[$0].key, output.members[$1].key)
            return a == b ? $0 < $1 : a < b
        }
        var text = output.scratch
        output.scratch = []
        text.removeAll(keepingCapacity: true)
        text.append(UInt8(ascii: "{"))
        for (position, index) in order.enumerated() {
            let member = output.members[index]
            if position + 1 < order.count, output.members[order[position + 1]].key == member.key { continue }
            if text.count > 1 { text.append(UInt8(ascii: ",")) }
            if let nested = member.deferred {
                JSONEscaping.write(member.key, into: &text)
                text.append(UInt8(ascii: ":"))
                nested.finish()
                text += nested.output.bytes
            } else {
                text += output.bytes[member.start..<member.end]
            }
        }
        text.append(UInt8(ascii: "}"))
        output.bytes.replaceSubrange(start..., with: text)
        output.scratch = text
    }

    /// Whether every member was written in place, each key after the one before it.
    private func membersInOrder() -> Bool {
        let members = output.members
        guard membersStart < members.count else { return true }
        guard members[membersStart].deferred == nil else { return false }
        for index in (membersStart + 1)..<members.count {
            guard members[index].deferred == nil, members[index - 1].key < members[index].key else { return false }
        }
        return true
    }

    // MARK: values

    /// The whole text of a top-level value.
    func encodeRoot<T: Encodable>(_ value: T) throws {
        if try writeKnown(value) { return }
        try value.encode(to: self)
        finish()
    }

    /// `value`, found under `key` below this encoder, written at the end of the output.
    func write<T: Encodable>(_ value: T, key: (any CodingKey)?) throws {
        if try writeKnown(value) { return }
        let nested = ValueEncoding(output: output, path: .child(parent: self, key: key))
        try value.encode(to: nested)
        nested.finish()
    }

    /// The types messages carry most, written directly rather than through their `Encodable` conformance, which
    /// costs an encoder per value; a `JSONValue` is written as it is. False for any other type.
    private func writeKnown<T: Encodable>(_ value: T) throws -> Bool {
        if T.self == String.self {
            JSONEscaping.write(unsafeBitCast(value, to: String.self), into: &output.bytes)
        } else if T.self == JSONValue.self {
            JSONText.write(unsafeBitCast(value, to: JSONValue.self), into: &output.bytes)
        } else if T.self == KnownCodableTypes.stringDictionary {
            writeStrings(unsafeBitCast(value, to: [String: String].self))
        } else if T.self == KnownCodableTypes.stringArray {
            writeStringArray(unsafeBitCast(value, to: [String].self))
        } else if T.self == KnownCodableTypes.valueDictionary {
            JSONText.write(.object(unsafeBitCast(value, to: [String: JSONValue].self)), into: &output.bytes)
        } else if T.self == KnownCodableTypes.valueArray {
            JSONText.write(.array(unsafeBitCast(value, to: [JSONValue].self)), into: &output.bytes)
        } else if T.self == Date.self {
            JSONEscaping.write(ParseDate.string(from: unsafeBitCast(value, to: Date.self)), into: &output.bytes)
        } else if T.self == Data.self {
            JSONEscaping.write(unsafeBitCast(value, to: Data.self).base64EncodedString(), into: &output.bytes)
        } else {
            return false
        }
        return true
    }

    private func writeStrings(_ strings: [String: String]) {
        output.bytes.append(UInt8(ascii: "{"))
        for (index, member) in strings.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { output.bytes.append(UInt8(ascii: ",")) }
            JSONEscaping.write(member.key, into: &output.bytes)
            output.bytes.append(UInt8(ascii: ":"))
            JSONEscaping.write(member.value, into: &output.bytes)
        }
        output.bytes.append(UInt8(ascii: "}"))
    }

    private func writeStringArray(_ strings: [String]) {
        output.bytes.append(UInt8(ascii: "["))
        for (index, text) in strings.enumerated() {
            if index > 0 { output.bytes.append(UInt8(ascii: ",")) }
            JSONEscaping.write(text, into: &output.bytes)
        }
        output.bytes.append(UInt8(ascii: "]"))
    }

    func writeNull() { output.bytes += "null".utf8 }

    func writeBool(_ value: Bool) { output.bytes += (value ? "true" : "false").utf8 }

    func writeString(_ value: String) { JSONEscaping.write(value, into: &output.bytes) }

    func writeNumber(_ value: Double, key: (any CodingKey)?) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: path(key),
                                                          debugDescription: "Unable to encode \(value) directly in JSON."))
        }
        JSONText.writeNumber(value, into: &output.bytes)
    }

    /// Whole numbers up to 2^53, which a double, and so a `JSONValue` reading them, holds exactly.
    func writeInteger<I: BinaryInteger>(_ value: I, key: (any CodingKey)?) throws {
        guard value.magnitude <= 9_007_199_254_740_992 else {
            throw EncodingError.invalidValue(value, .init(codingPath: path(key),
                                                          debugDescription: "\(value) is beyond the whole numbers JSON numbers hold exactly (2^53)."))
        }
        // 2^53 itself is spelled as `JSONText` spells that double.
        if value.magnitude == 9_007_199_254_740_992 { return JSONText.writeNumber(Double(value), into: &output.bytes) }
        JSONText.writeInteger(Int64(value), into: &output.bytes)
    }

    /// Floats as their shortest text reads: `Float(0.1)` is `0.1`, not the double nearest to it.
    func writeFloat(_ value: Float, key: (any CodingKey)?) throws {
        guard value.isFinite else { return try writeNumber(Double(value), key: key) }
        try writeNumber(Double(value.description) ?? Double(value), key: key)
    }

    func path(_ key: (any CodingKey)?) -> [any CodingKey] {
        guard let key else { return codingPath }
        return codingPath + [key]
    }
}
