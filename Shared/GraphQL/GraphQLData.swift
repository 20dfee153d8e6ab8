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

    /// Compact JSON text; a float without a fraction keeps one (`1.0`), as GraphQL's Float serializes.
    public var jsonText: String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .boolean(let flag): text += flag ? "true" : "false"
        case .int(let number): text += String(number)
        case .float(let number):
            if number.isFinite { text += number == number.rounded() && abs(number) < 1e15 ? String(format1: number) : "\(number)" }
            else { text += "null" }
        case .string(let string): Self.writeString(string, to: &text)
        case .list(let items):
            text += "["
            for (index, item) in items.enumerated() {
                if index > 0 { text += "," }
                item.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { text += "," }
                Self.writeString(member.key, to: &text)
                text += ":"
                member.value.write(to: &text)
            }
            text += "}"
        }
    }

    private static func writeString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
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

private extension String {
    /// A whole number as a float: `3.0`.
    init(format1 number: Double) {
        self = String(Int64(number)) + ".0"
    }
}
