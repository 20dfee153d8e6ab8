import ParseWire

extension JSONValue {
    /// The type name parse-server uses in schema mismatch messages.
    var typeName: String {
        switch self {
        case .null: "Null"
        case .bool: "Boolean"
        case .number: "Number"
        case .string: "String"
        case .array: "Array"
        case .object(let object): object["__type"]?.stringValue ?? "Object"
        }
    }
}
