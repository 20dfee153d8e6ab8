import ParseWire

/// A Parse field type as the schema records it (`{"type":"Pointer","targetClass":"Cat"}`).
public struct FieldType: Sendable, Hashable {
    public enum Kind: String, Sendable, CaseIterable {
        case string = "String", number = "Number", boolean = "Boolean", date = "Date", object = "Object"
        case array = "Array", pointer = "Pointer", file = "File", geoPoint = "GeoPoint", polygon = "Polygon", bytes = "Bytes"
        case relation = "Relation", acl = "ACL"
    }

    public var kind: Kind
    public var targetClass: String?

    public init(_ kind: Kind, targetClass: String? = nil) {
        self.kind = kind
        self.targetClass = targetClass
    }

    /// As parse-server prints types in its messages: `Number`, `Pointer<Cat>`.
    public var description: String {
        if let targetClass { return "\(kind.rawValue)<\(targetClass)>" }
        return kind.rawValue
    }

    /// The column that stores the type; nil for Relation (a join table) and ACL (`_rperm`/`_wperm`).
    public var columnType: String? {
        switch kind {
        case .string, .pointer, .file: "text"
        case .number: "double precision"
        case .boolean: "boolean"
        case .date: "timestamptz"
        case .object, .array, .bytes: "jsonb"
        case .geoPoint: "point"
        case .polygon: "polygon"
        case .relation, .acl: nil
        }
    }

    public var schemaJSON: JSONValue {
        var fields: [String: JSONValue] = ["type": .string(kind.rawValue)]
        if let targetClass { fields["targetClass"] = .string(targetClass) }
        return .object(fields)
    }

    public init?(schemaJSON: JSONValue) {
        guard let name = schemaJSON["type"]?.stringValue, let kind = Kind(rawValue: name) else { return nil }
        self.init(kind, targetClass: schemaJSON["targetClass"]?.stringValue)
    }

    /// The type a written value gives its field (parse-server's `getObjectType`); nil for null and `Delete`,
    /// which fix no type.
    public static func of(_ value: JSONValue) throws(ParseError) -> FieldType? {
        switch value {
        case .null: return nil
        case .string: return FieldType(.string)
        case .number: return FieldType(.number)
        case .bool: return FieldType(.boolean)
        case .array: return FieldType(.array)
        case .object(let fields):
            if let type = fields["__type"]?.stringValue { return try typed(type, fields) }
            if let op = fields["__op"]?.stringValue { return try operation(op, fields) }
            return FieldType(.object)
        }
    }

    private static func typed(_ type: String, _ fields: [String: JSONValue]) throws(ParseError) -> FieldType {
        switch type {
        case "Date": return FieldType(.date)
        case "File": return FieldType(.file)
        case "GeoPoint": return FieldType(.geoPoint)
        case "Polygon": return FieldType(.polygon)
        case "Bytes": return FieldType(.bytes)
        case "Pointer", "Relation":
            guard let className = fields["className"]?.stringValue, Names.isValidClassName(className)
                    || className.hasPrefix("_") && Names.isValidClassName(String(className.dropFirst())) else {
                throw ParseError(.incorrectType, "This is not a valid \(type)")
            }
            return FieldType(type == "Pointer" ? .pointer : .relation, targetClass: className)
        default:
            throw ParseError(.incorrectType, "This is not a valid \(type)")
        }
    }

    private static func operation(_ op: String, _ fields: [String: JSONValue]) throws(ParseError) -> FieldType? {
        switch op {
        case "Increment": return FieldType(.number)
        case "Add", "AddUnique", "Remove": return FieldType(.array)
        case "Delete": return nil
        case "AddRelation", "RemoveRelation":
            guard let first = fields["objects"]?.arrayValue?.first else { return nil }
            guard let pointerType = try of(first), pointerType.kind == .pointer else {
                throw ParseError(.invalidPointer, "Relations only hold pointers.")
            }
            return FieldType(.relation, targetClass: pointerType.targetClass)
        case "Batch":
            for item in fields["ops"]?.arrayValue ?? [] {
                if let type = try of(item) { return type }
            }
            return nil
        default:
            throw ParseError(.invalidJSON, "Unknown update operator: \(op)")
        }
    }
}
