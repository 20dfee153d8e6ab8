import Foundation

/// The keyed container of `ValueEncoding`.
struct KeyedValueEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoding
    let buffer: ObjectBuffer

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) throws { buffer.fields[key.stringValue] = .null }
    mutating func encode(_ value: Bool, forKey key: Key) throws { buffer.fields[key.stringValue] = .bool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { buffer.fields[key.stringValue] = .string(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        buffer.fields[key.stringValue] = try encoder.number(value, key: key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        buffer.fields[key.stringValue] = try encoder.float(value, key: key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        buffer.fields[key.stringValue] = try encoder.box(value, key: key)
    }

    private func integer<I: BinaryInteger>(_ value: I, _ key: Key) throws {
        buffer.fields[key.stringValue] = try encoder.integer(value, key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        deferred(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        deferred(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { deferred(JSONCodingKey.super) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { deferred(key) }

    private func deferred(_ key: any CodingKey) -> ValueEncoding {
        let nested = encoder.deferred(key)
        buffer.fields[key.stringValue] = nil
        buffer.pending.append((key.stringValue, nested))
        return nested
    }
}

/// The unkeyed container of `ValueEncoding`.
struct UnkeyedValueEncoding: UnkeyedEncodingContainer {
    let encoder: ValueEncoding
    let buffer: ArrayBuffer

    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { buffer.items.count }

    private var nextKey: JSONCodingKey { JSONCodingKey(index: buffer.items.count) }

    mutating func encodeNil() throws { buffer.items.append(.null) }
    mutating func encode(_ value: Bool) throws { buffer.items.append(.bool(value)) }
    mutating func encode(_ value: String) throws { buffer.items.append(.string(value)) }
    mutating func encode(_ value: Double) throws { buffer.items.append(try encoder.number(value, key: nextKey)) }
    mutating func encode(_ value: Float) throws { buffer.items.append(try encoder.float(value, key: nextKey)) }
    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        buffer.items.append(try encoder.box(value, key: nextKey))
    }

    private func integer<I: BinaryInteger>(_ value: I) throws {
        buffer.items.append(try encoder.integer(value, key: nextKey))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        deferred().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { deferred().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { deferred() }

    private func deferred() -> ValueEncoding {
        let nested = encoder.deferred(nextKey)
        buffer.pending.append((buffer.items.count, nested))
        buffer.items.append(.null)
        return nested
    }
}

/// The single value container of `ValueEncoding`.
struct SingleValueEncoding: SingleValueEncodingContainer {
    let encoder: ValueEncoding

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.store(.null) }
    mutating func encode(_ value: Bool) throws { encoder.store(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.store(.string(value)) }
    mutating func encode(_ value: Double) throws { encoder.store(try encoder.number(value, key: nil)) }
    mutating func encode(_ value: Float) throws { encoder.store(try encoder.float(value, key: nil)) }
    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }

    mutating func encode<T: Encodable>(_ value: T) throws { encoder.store(try encoder.box(value, key: nil)) }

    private func integer<I: BinaryInteger>(_ value: I) throws { encoder.store(try encoder.integer(value, key: nil)) }
}
