import ParseWire

/// A value of a GraphQL response, or of an input once coerced: JSON's values, with objects keeping their order
/// (a response lists fields in the order the selection asked for them) and integers apart from other numbers.
public indirect enum GraphQLData: Sendable, Hashable {
    case null
    case boolean(Bool)
    case int(Int)
    case float(Double)
    case string(String)
    case list([GraphQLData])
    case object([GraphQLObjectMember])

    public subscript(key: String) -> GraphQLData? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    public var isNull: Bool { self == .null }

    /// Compact JSON text, numbers as JavaScript writes them (a whole float without a fraction, as graphql-js's
    /// responses have it).
    public var jsonText: String {
        var bytes: [UInt8] = []
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private func write(to output: inout [UInt8]) {
        switch self {
        case .null: output += "null".utf8
        case .boolean(let flag): output += (flag ? "true" : "false").utf8
        case .int(let number): output += String(number).utf8
        case .float(let number): output += JSONText.format(number).utf8
        case .string(let string): JSONText.writeString(string, into: &output)
        case .list(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                item.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONText.writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }
}

public struct GraphQLObjectMember: Sendable, Hashable {
    public var key: String
    public var value: GraphQLData

    public init(_ key: String, _ value: GraphQLData) {
        self.key = key
        self.value = value
    }
}
