import GraphQL
import ParseWire

extension GraphQLData {
    /// A Parse value as GraphQL carries it: a whole number as an integer (as JavaScript prints it), any other as a
    /// float.
    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .boolean(flag)
        case .number(let number):
            if number.rounded() == number, abs(number) < 9_007_199_254_740_992 { self = .int(Int(number)) } else { self = .float(number) }
        case .string(let text): self = .string(text)
        case .array(let items): self = .list(items.map(GraphQLData.init(json:)))
        case .object(let members):
            // In no particular order: a response's order is its selection's.
            self = .object(members.map { GraphQLObjectMember($0.key, GraphQLData(json: $0.value)) })
        }
    }

    var json: JSONValue {
        switch self {
        case .null: .null
        case .boolean(let flag): .bool(flag)
        case .int(let number): .number(Double(number))
        case .float(let number): .number(number)
        case .string(let text): .string(text)
        case .list(let items): .array(items.map(\.json))
        case .object(let members): .object(Dictionary(members.map { ($0.key, $0.value.json) }) { _, last in last })
        }
    }

    /// The value with every object's keys in order, as the REST API writes them: an `Object` or `Any` value reads the
    /// same in every answer.
    var sortingKeys: GraphQLData {
        switch self {
        case .list(let items): .list(items.map(\.sortingKeys))
        case .object(let members): .object(members.sorted { $0.key < $1.key }.map { GraphQLObjectMember($0.key, $0.value.sortingKeys) })
        default: self
        }
    }

    var stringValue: String? { if case .string(let text) = self { text } else { nil } }

    var objectMembers: [GraphQLObjectMember]? { if case .object(let members) = self { members } else { nil } }

    /// The object with `key` set to `value` (added at the end when absent).
    func setting(_ key: String, _ value: GraphQLData) -> GraphQLData {
        guard var members = objectMembers else { return self }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append(GraphQLObjectMember(key, value))
        }
        return .object(members)
    }
}
