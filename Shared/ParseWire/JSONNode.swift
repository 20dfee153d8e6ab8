/// JSON as the messages' decoder reads it: a `JSONValue` whose objects keep their members as a list, in the order
/// of the text. A message's objects are small and each member is asked for once, so finding it by comparing keys
/// costs less than hashing every key into a dictionary first. Of a key written twice, the last counts, as in a
/// `JSONValue`.
enum JSONNode: JSONTree {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONNode])
    case object([Member])

    struct Member {
        let key: String
        let value: JSONNode
    }

    static func noMembers() -> [Member] { [] }

    static func add(_ key: String, _ value: JSONNode, to members: inout [Member]) {
        members.append(Member(key: key, value: value))
    }

    static func parse(_ bytes: [UInt8]) -> JSONNode? {
        bytes.withUnsafeBufferPointer { JSONParser<JSONNode>.parse($0) }
    }

    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .array(let items): self = .array(items.map(JSONNode.init))
        case .object(let fields): self = .object(fields.map { Member(key: $0.key, value: JSONNode($0.value)) })
        }
    }

    /// The same value as a `JSONValue`, for a member whose type is one.
    var value: JSONValue {
        switch self {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .number(let number): .number(number)
        case .string(let text): .string(text)
        case .array(let items): .array(items.map(\.value))
        case .object(let members): .object(Self.fields(members))
        }
    }

    static func fields(_ members: [Member]) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        fields.reserveCapacity(members.count)
        for member in members { fields[member.key] = member.value.value }
        return fields
    }

    /// The value of `key`, the last one written; nil when there is none.
    static func member(_ key: String, in members: [Member]) -> JSONNode? {
        var index = members.endIndex
        while index > members.startIndex {
            index -= 1
            if members[index].key == key { return members[index].value }
        }
        return nil
    }
}
