/// Any JSON value, as Parse bodies, `where` clauses and stored objects carry them. Numbers are doubles, as in
/// parse-server (JavaScript numbers); objects keep no key order.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses JSON text (`JSONParser`); nil when it is not JSON.
    public static func parse(_ text: String) -> JSONValue? {
        var text = text
        return text.withUTF8 { JSONParser<JSONValue>.parse($0) }
    }

    public static func parse(_ bytes: [UInt8]) -> JSONValue? {
        bytes.withUnsafeBufferPointer { JSONParser<JSONValue>.parse($0) }
    }

    /// `parse`, with what is wrong when the text is not JSON.
    public static func parseReporting(_ text: String) -> Result<JSONValue, JSONSyntaxError> {
        var text = text
        return text.withUTF8 { JSONParser<JSONValue>.parseReporting($0) }
    }

    public static func parseReporting(_ bytes: [UInt8]) -> Result<JSONValue, JSONSyntaxError> {
        bytes.withUnsafeBufferPointer { JSONParser<JSONValue>.parseReporting($0) }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    public var objectValue: [String: JSONValue]? { if case .object(let v) = self { v } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let v) = self { v } else { nil } }
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    public var numberValue: Double? { if case .number(let v) = self { v } else { nil } }
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var isNull: Bool { self == .null }
}
