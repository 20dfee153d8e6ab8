import Foundation

/// `Encodable` values to `JSONValue`, and through `JSONText` to the compact bytes messages carry: the one JSON
/// coder of the messages between services. The form is the one Foundation's `JSONEncoder` gives the same value
/// (absent optionals left out), with keys sorted, except that a `Date` is Parse's date text
/// (`2026-11-30T14:02:51.492Z`, `ParseDate`) and whole numbers beyond 2^53, which a `JSONValue` number cannot
/// hold exactly, are refused instead of rounded.
public struct JSONValueEncoder: Sendable {
    public init() {}

    public func encodeValue<T: Encodable>(_ value: T) throws -> JSONValue {
        try ValueEncoding(path: .root).box(value, key: nil)
    }

    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        JSONText.bytes(try encodeValue(value))
    }
}

/// The members written so far by a keyed container, and the nested containers handed out for later members.
final class ObjectBuffer {
    var fields: [String: JSONValue] = [:]
    var pending: [(key: String, encoder: ValueEncoding)] = []
}

/// The items written so far by an unkeyed container; a nested container's place holds `null` until it is read.
final class ArrayBuffer {
    var items: [JSONValue] = []
    var pending: [(index: Int, encoder: ValueEncoding)] = []
}

/// Where a value sits, for `codingPath`: a value being encoded names its parent and key; a nested container
/// handed out for later keeps its path as a list, so that no parent and child hold each other.
enum CodingPathLink {
    case root
    case child(parent: any CodingPathHolder, key: (any CodingKey)?)
    case fixed([any CodingKey])

    var path: [any CodingKey] {
        switch self {
        case .root: return []
        case .fixed(let path): return path
        case .child(let parent, let key):
            let above = parent.codingPath
            guard let key else { return above }
            return above + [key]
        }
    }
}

protocol CodingPathHolder: AnyObject {
    var codingPath: [any CodingKey] { get }
}

/// One value being encoded: the container its `encode(to:)` asks for collects its members.
final class ValueEncoding: Encoder, CodingPathHolder {
    enum Storage {
        case none
        case value(JSONValue)
        case object(ObjectBuffer)
        case array(ArrayBuffer)
    }

    private(set) var storage = Storage.none
    let link: CodingPathLink

    init(path: CodingPathLink) { link = path }

    var codingPath: [any CodingKey] { link.path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedValueEncoding<Key>(encoder: self, buffer: objectBuffer()))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedValueEncoding(encoder: self, buffer: arrayBuffer())
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueEncoding(encoder: self) }

    /// A second request for a keyed container adds to the first, as with Foundation's encoder.
    private func objectBuffer() -> ObjectBuffer {
        if case .object(let buffer) = storage { return buffer }
        let buffer = ObjectBuffer()
        storage = .object(buffer)
        return buffer
    }

    private func arrayBuffer() -> ArrayBuffer {
        if case .array(let buffer) = storage { return buffer }
        let buffer = ArrayBuffer()
        storage = .array(buffer)
        return buffer
    }

    func store(_ value: JSONValue) { storage = .value(value) }

    /// What was encoded; a value that asked for no container is an empty object, as Foundation writes it.
    var value: JSONValue {
        switch storage {
        case .none: return .object([:])
        case .value(let value): return value
        case .object(let buffer):
            var fields = buffer.fields
            for (key, nested) in buffer.pending { fields[key] = nested.value }
            return .object(fields)
        case .array(let buffer):
            var items = buffer.items
            for (index, nested) in buffer.pending { items[index] = nested.value }
            return .array(items)
        }
    }

    /// `value` as JSON. The types messages carry most are written directly rather than through their `Encodable`
    /// conformance, which allocates an encoder per value.
    func box<T: Encodable>(_ value: T, key: (any CodingKey)?) throws -> JSONValue {
        if T.self == JSONValue.self { return value as! JSONValue }
        if T.self == String.self { return .string(value as! String) }
        if T.self == [String: String].self { return .object((value as! [String: String]).mapValues { .string($0) }) }
        if T.self == [String].self { return .array((value as! [String]).map { .string($0) }) }
        if T.self == Date.self { return .string(ParseDate.string(from: value as! Date)) }
        if T.self == Data.self { return .string((value as! Data).base64EncodedString()) }
        let nested = ValueEncoding(path: .child(parent: self, key: key))
        try value.encode(to: nested)
        return nested.value
    }

    /// A container for later members: its value is read when this encoder's is.
    func deferred(_ key: any CodingKey) -> ValueEncoding {
        ValueEncoding(path: .fixed(codingPath + [key]))
    }

    func number(_ value: Double, key: (any CodingKey)?) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: path(key),
                                                          debugDescription: "Unable to encode \(value) directly in JSON."))
        }
        return .number(value)
    }

    /// Whole numbers up to 2^53, which a double holds exactly.
    func integer<I: BinaryInteger>(_ value: I, key: (any CodingKey)?) throws -> JSONValue {
        guard value.magnitude <= 9_007_199_254_740_992 else {
            throw EncodingError.invalidValue(value, .init(codingPath: path(key),
                                                          debugDescription: "\(value) is beyond the whole numbers JSON numbers hold exactly (2^53)."))
        }
        return .number(Double(value))
    }

    /// Floats as their shortest text reads: `Float(0.1)` is `0.1`, not the double nearest to it.
    func float(_ value: Float, key: (any CodingKey)?) throws -> JSONValue {
        guard value.isFinite else { return try number(Double(value), key: key) }
        return .number(Double(value.description) ?? Double(value))
    }

    func path(_ key: (any CodingKey)?) -> [any CodingKey] {
        guard let key else { return codingPath }
        return codingPath + [key]
    }
}
