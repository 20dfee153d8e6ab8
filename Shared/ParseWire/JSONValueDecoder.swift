import Foundation

/// `JSONValue`, or JSON bytes read by `JSONParser` into `JSONNode`s, to `Decodable` values: the counterpart of `JSONValueEncoder`.
/// It accepts what Foundation's `JSONDecoder` accepts for the same types (a `Date` as Parse's date text) and
/// fails with the same `DecodingError` cases and coding paths.
public struct JSONValueDecoder: Sendable {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoding(JSONNode(value), path: .root).unbox(type, key: nil)
    }

    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        guard let node = JSONNode.parse(bytes) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON."))
        }
        return try ValueDecoding(node, path: .root).unbox(type, key: nil)
    }
}

/// One value being decoded; it is its own single value container.
final class ValueDecoding: Decoder, SingleValueDecodingContainer, CodingPathHolder {
    let value: JSONNode
    let link: CodingPathLink

    init(_ value: JSONNode, path: CodingPathLink) {
        self.value = value
        link = path
    }

    var codingPath: [any CodingKey] { link.path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw mismatch([String: Any].self, value, key: nil)
        }
        return KeyedDecodingContainer(KeyedValueDecoding<Key>(decoder: self, members: members))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([Any].self, value, key: nil) }
        return UnkeyedValueDecoding(decoder: self, items: items)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: the single value container

    func decodeNil() -> Bool { if case .null = value { true } else { false } }
    func decode(_ type: Bool.Type) throws -> Bool { try bool(value, key: nil) }
    func decode(_ type: String.Type) throws -> String { try string(value, key: nil) }
    func decode(_ type: Double.Type) throws -> Double { try number(value, key: nil) }
    func decode(_ type: Float.Type) throws -> Float { try float(value, key: nil) }
    func decode(_ type: Int.Type) throws -> Int { try integer(value, key: nil) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(value, key: nil) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(value, key: nil) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(value, key: nil) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(value, key: nil) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(value, key: nil) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(value, key: nil) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(value, key: nil) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(value, key: nil) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(value, key: nil) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unbox(type, key: nil) }

    // MARK: reading values

    /// This decoder's value as a `T`.
    func unbox<T: Decodable>(_ type: T.Type, key: (any CodingKey)?) throws -> T {
        try unbox(type, from: value, key: key, nested: false)
    }

    /// `value`, found under `key` below this decoder (or this decoder's own value when `nested` is false), as a
    /// `T`. The types messages carry most are read directly, without a decoder per value.
    func unbox<T: Decodable>(_ type: T.Type, from value: JSONNode, key: (any CodingKey)?, nested: Bool = true) throws -> T {
        if T.self == String.self { return unsafeBitCast(try string(value, key: key), to: T.self) }
        if T.self == JSONValue.self { return unsafeBitCast(value.value, to: T.self) }
        if T.self == KnownCodableTypes.stringDictionary { return unsafeBitCast(try strings(value, key: key), to: T.self) }
        if T.self == KnownCodableTypes.stringArray { return unsafeBitCast(try stringList(value, key: key), to: T.self) }
        if T.self == KnownCodableTypes.valueDictionary {
            guard case .object(let members) = value else { throw mismatch(T.self, value, key: key) }
            return unsafeBitCast(JSONNode.fields(members), to: T.self)
        }
        if T.self == KnownCodableTypes.valueArray {
            guard case .array(let items) = value else { throw mismatch(T.self, value, key: key) }
            return unsafeBitCast(items.map(\.value), to: T.self)
        }
        if T.self == Date.self { return unsafeBitCast(try date(value, key: key), to: T.self) }
        if T.self == Data.self { return unsafeBitCast(try data(value, key: key), to: T.self) }
        guard nested else { return try T(from: self) }
        return try T(from: ValueDecoding(value, path: .child(parent: self, key: key)))
    }

    func bool(_ value: JSONNode, key: (any CodingKey)?) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self, value, key: key) }
        return flag
    }

    func string(_ value: JSONNode, key: (any CodingKey)?) throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self, value, key: key) }
        return text
    }

    func number(_ value: JSONNode, key: (any CodingKey)?) throws -> Double {
        guard case .number(let number) = value else { throw mismatch(Double.self, value, key: key) }
        return number
    }

    func float(_ value: JSONNode, key: (any CodingKey)?) throws -> Float {
        guard case .number(let number) = value else { throw mismatch(Float.self, value, key: key) }
        guard abs(number) <= Double(Float.greatestFiniteMagnitude) else {
            throw corrupted("Parsed JSON number \(number) does not fit in Float.", key: key)
        }
        return Float(number)
    }

    func integer<I: FixedWidthInteger>(_ value: JSONNode, key: (any CodingKey)?) throws -> I {
        guard case .number(let number) = value else { throw mismatch(I.self, value, key: key) }
        guard let whole = I(exactly: number) else {
            throw corrupted("Parsed JSON number <\(JSONText.format(number))> does not fit in \(I.self).", key: key)
        }
        return whole
    }

    private func strings(_ value: JSONNode, key: (any CodingKey)?) throws -> [String: String] {
        guard case .object(let members) = value else { throw mismatch([String: String].self, value, key: key) }
        var strings: [String: String] = [:]
        strings.reserveCapacity(members.count)
        for member in members {
            guard case .string(let text) = member.value else {
                throw DecodingError.typeMismatch(String.self, .init(
                    codingPath: path(key) + [JSONCodingKey(stringValue: member.key)],
                    debugDescription: Self.expected(String.self, member.value)))
            }
            strings[member.key] = text
        }
        return strings
    }

    private func stringList(_ value: JSONNode, key: (any CodingKey)?) throws -> [String] {
        guard case .array(let items) = value else { throw mismatch([String].self, value, key: key) }
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                throw DecodingError.typeMismatch(String.self, .init(codingPath: path(key) + [JSONCodingKey(index: index)],
                                                                    debugDescription: Self.expected(String.self, item)))
            }
            strings.append(text)
        }
        return strings
    }

    private func date(_ value: JSONNode, key: (any CodingKey)?) throws -> Date {
        guard let date = ParseDate.date(from: try string(value, key: key)) else {
            throw corrupted("Expected date string to be ISO8601-formatted.", key: key)
        }
        return date
    }

    private func data(_ value: JSONNode, key: (any CodingKey)?) throws -> Data {
        guard let data = Data(base64Encoded: try string(value, key: key)) else {
            throw corrupted("Encountered Data is not valid Base64.", key: key)
        }
        return data
    }

    // MARK: errors

    func path(_ key: (any CodingKey)?) -> [any CodingKey] {
        guard let key else { return codingPath }
        return codingPath + [key]
    }

    func mismatch(_ type: Any.Type, _ value: JSONNode, key: (any CodingKey)?) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: path(key), debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        return .typeMismatch(type, .init(codingPath: path(key), debugDescription: Self.expected(type, value)))
    }

    func corrupted(_ description: String, key: (any CodingKey)?) -> DecodingError {
        .dataCorrupted(.init(codingPath: path(key), debugDescription: description))
    }

    static func expected(_ type: Any.Type, _ value: JSONNode) -> String {
        let found = switch value {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
        return "Expected to decode \(type) but found \(found) instead."
    }
}
