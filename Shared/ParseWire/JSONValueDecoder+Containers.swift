/// The keyed container of `ValueDecoding`. Members are found by comparing keys; an object with many members (a
/// dictionary read through `allKeys`, say) gets an index first, so reading all of them stays linear.
struct KeyedValueDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoding
    let members: [JSONNode.Member]
    /// Position of each key's last member, for objects past `indexedFrom` members.
    private let index: [String: Int]?
    static var indexedFrom: Int { 16 }

    init(decoder: ValueDecoding, members: [JSONNode.Member]) {
        self.decoder = decoder
        self.members = members
        guard members.count >= Self.indexedFrom else { index = nil; return }
        var index: [String: Int] = [:]
        index.reserveCapacity(members.count)
        for (position, member) in members.enumerated() { index[member.key] = position }
        self.index = index
    }

    private func find(_ key: String) -> JSONNode? {
        guard let index else { return JSONNode.member(key, in: members) }
        return index[key].map { members[$0].value }
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] {
        var seen = Set<String>()
        return members.compactMap { seen.insert($0.key).inserted ? Key(stringValue: $0.key) : nil }
    }

    func contains(_ key: Key) -> Bool { find(key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try member(key) { true } else { false }
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(member(key), key: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.string(member(key), key: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.number(member(key), key: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.float(member(key), key: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.integer(member(key), key: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.integer(member(key), key: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.integer(member(key), key: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.integer(member(key), key: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.integer(member(key), key: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.integer(member(key), key: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.integer(member(key), key: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.integer(member(key), key: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.integer(member(key), key: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.integer(member(key), key: key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unbox(type, from: member(key), key: key)
    }

    // One look-up for an optional member, where the protocol's defaults make three.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key).map { try decoder.bool($0, key: key) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key).map { try decoder.string($0, key: key) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key).map { try decoder.number($0, key: key) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try present(key).map { try decoder.integer($0, key: key) }
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try present(key).map { try decoder.integer($0, key: key) }
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try decoder.unbox(type, from: $0, key: key) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type,
                                               forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try nested(member(key), key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try nested(member(key), key).unkeyedContainer()
    }

    /// As Foundation's: the member `super`, or null when there is none.
    func superDecoder() throws -> any Decoder { nested(find("super") ?? .null, JSONCodingKey.super) }

    func superDecoder(forKey key: Key) throws -> any Decoder { nested(find(key.stringValue) ?? .null, key) }

    private func nested(_ value: JSONNode, _ key: any CodingKey) -> ValueDecoding {
        ValueDecoding(value, path: .child(parent: decoder, key: key))
    }

    private func member(_ key: Key) throws -> JSONNode {
        guard let value = find(key.stringValue) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath,
                                                       debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return value
    }

    /// The member, nil when it is absent or null.
    private func present(_ key: Key) -> JSONNode? {
        switch find(key.stringValue) {
        case nil, .null?: nil
        case let value?: value
        }
    }
}

/// The unkeyed container of `ValueDecoding`.
struct UnkeyedValueDecoding: UnkeyedDecodingContainer {
    let decoder: ValueDecoding
    let items: [JSONNode]
    private(set) var currentIndex = 0

    init(decoder: ValueDecoding, items: [JSONNode]) {
        self.decoder = decoder
        self.items = items
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    mutating func decodeNil() throws -> Bool {
        guard case .null = try peek(Any?.self) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.bool($1, key: $2) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.string($1, key: $2) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try $0.number($1, key: $2) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try $0.float($1, key: $2) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try $0.integer($1, key: $2) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try $0.integer($1, key: $2) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try $0.integer($1, key: $2) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try $0.integer($1, key: $2) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try $0.integer($1, key: $2) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try $0.integer($1, key: $2) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try $0.integer($1, key: $2) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try $0.integer($1, key: $2) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try $0.integer($1, key: $2) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try $0.integer($1, key: $2) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next(type) { try $0.unbox(type, from: $1, key: $2) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self) { try Self.nested($0, $1, $2).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self) { try Self.nested($0, $1, $2).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next((any Decoder).self) { Self.nested($0, $1, $2) }
    }

    private static func nested(_ decoder: ValueDecoding, _ value: JSONNode, _ key: any CodingKey) -> ValueDecoding {
        ValueDecoding(value, path: .child(parent: decoder, key: key))
    }

    /// Reads the current item and steps past it only when `read` succeeds, as Foundation's container does.
    private mutating func next<T>(_ type: T.Type, _ read: (ValueDecoding, JSONNode, JSONCodingKey) throws -> T) throws -> T {
        let value = try peek(type)
        let result = try read(decoder, value, JSONCodingKey(index: currentIndex))
        currentIndex += 1
        return result
    }

    private func peek(_ type: Any.Type) throws -> JSONNode {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [JSONCodingKey(index: currentIndex)],
                                                          debugDescription: "Unkeyed container is at end."))
        }
        return items[currentIndex]
    }
}
