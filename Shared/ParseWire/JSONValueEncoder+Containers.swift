import Foundation

/// The keyed container of `ValueEncoding`: each member is written with its key at the end of the output and
/// recorded under its key.
struct KeyedValueEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoding

    var codingPath: [any CodingKey] { encoder.codingPath }

    /// A member whose value fails leaves nothing behind (its key included), as with Foundation's encoder, so a
    /// caller that goes on after the error still gets valid JSON.
    private func member(_ key: Key, _ write: (ValueEncoding) throws -> Void) rethrows {
        let name = key.stringValue
        let (bytes, members) = (encoder.output.bytes.count, encoder.output.members.count)
        let start = encoder.beginMember(name)
        do {
            try write(encoder)
        } catch {
            encoder.output.bytes.removeSubrange(bytes...)
            encoder.output.members.removeSubrange(members...)
            throw error
        }
        encoder.endMember(name, from: start)
    }

    mutating func encodeNil(forKey key: Key) throws { member(key) { $0.writeNull() } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { member(key) { $0.writeBool(value) } }
    mutating func encode(_ value: String, forKey key: Key) throws { member(key) { $0.writeString(value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws { try member(key) { try $0.writeNumber(value, key: key) } }
    mutating func encode(_ value: Float, forKey key: Key) throws { try member(key) { try $0.writeFloat(value, key: key) } }
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
        try member(key) { try $0.write(value, key: key) }
    }

    private func integer<I: BinaryInteger>(_ value: I, _ key: Key) throws {
        try member(key) { try $0.writeInteger(value, key: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder.deferredMember(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.deferredMember(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { encoder.deferredMember(JSONCodingKey.super) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder.deferredMember(key) }
}

/// The unkeyed container of `ValueEncoding`: items are written in place, with their commas.
struct UnkeyedValueEncoding: UnkeyedEncodingContainer {
    let encoder: ValueEncoding

    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.itemCount }

    /// Starts the next item; its key, for an error's path.
    private func next() -> JSONCodingKey { JSONCodingKey(index: encoder.beginItem()) }

    mutating func encodeNil() throws { _ = next(); encoder.writeNull() }
    mutating func encode(_ value: Bool) throws { _ = next(); encoder.writeBool(value) }
    mutating func encode(_ value: String) throws { _ = next(); encoder.writeString(value) }
    mutating func encode(_ value: Double) throws { try encoder.writeNumber(value, key: next()) }
    mutating func encode(_ value: Float) throws { try encoder.writeFloat(value, key: next()) }
    mutating func encode(_ value: Int) throws { try encoder.writeInteger(value, key: next()) }
    mutating func encode(_ value: Int8) throws { try encoder.writeInteger(value, key: next()) }
    mutating func encode(_ value: Int16) throws { try encoder.writeInteger(value, key: next()) }
    mutating func encode(_ value: Int32) throws { try encoder.writeInteger(value, key: next()) }
    mutating func encode(_ value: Int64) throws { try encoder.writeInteger(value, key: next()) }
    mutating func encode(_ value: UInt) throws { try encoder.writeInteger(value, key: next()) }
    mutating func encode(_ value: UInt8) throws { try encoder.writeInteger(value, key: next()) }
    mutating func encode(_ value: UInt16) throws { try encoder.writeInteger(value, key: next()) }
    mutating func encode(_ value: UInt32) throws { try encoder.writeInteger(value, key: next()) }
    mutating func encode(_ value: UInt64) throws { try encoder.writeInteger(value, key: next()) }

    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.write(value, key: next()) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        encoder.deferredItem().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        encoder.deferredItem().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        encoder.deferredItem()
    }
}

/// The single value container of `ValueEncoding`.
struct SingleValueEncoding: SingleValueEncodingContainer {
    let encoder: ValueEncoding

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.beginSingle(); encoder.writeNull() }
    mutating func encode(_ value: Bool) throws { encoder.beginSingle(); encoder.writeBool(value) }
    mutating func encode(_ value: String) throws { encoder.beginSingle(); encoder.writeString(value) }
    mutating func encode(_ value: Double) throws { encoder.beginSingle(); try encoder.writeNumber(value, key: nil) }
    mutating func encode(_ value: Float) throws { encoder.beginSingle(); try encoder.writeFloat(value, key: nil) }
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

    mutating func encode<T: Encodable>(_ value: T) throws { encoder.beginSingle(); try encoder.write(value, key: nil) }

    private func integer<I: BinaryInteger>(_ value: I) throws { encoder.beginSingle(); try encoder.writeInteger(value, key: nil) }
}
