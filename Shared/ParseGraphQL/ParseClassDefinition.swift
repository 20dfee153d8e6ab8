import ParseWire

/// A class of the Parse schema as `GET /schemas` gives it: what the GraphQL types of the class are made from.
public struct ParseClassDefinition: Sendable, Equatable {
    public struct Field: Sendable, Equatable {
        public var type: String
        public var targetClass: String?
        public var required: Bool
    }

    public var className: String
    /// By name, sorted (parse-server orders them so the schema is the same after every restart).
    public var fields: [(name: String, field: Field)]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.className == rhs.className && lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.field == $1.field }
    }

    public func field(_ name: String) -> Field? { fields.first { $0.name == name }?.field }

    /// The class's name in GraphQL: without a leading underscore, capitalised (`_User` -> `User`).
    public var graphQLName: String { Self.graphQLName(of: className) }

    static func graphQLName(of className: String) -> String {
        let name = className.hasPrefix("_") ? String(className.dropFirst()) : className
        return name.prefix(1).uppercased() + name.dropFirst()
    }

    /// `graphQLName` with its first letter lower-cased: the get query's name and the mutations' payload field.
    public var graphQLFieldName: String { graphQLName.prefix(1).lowercased() + graphQLName.dropFirst() }

    /// The fields a client sets and reads beyond every object's own (`objectId`, `createdAt`, `updatedAt`, `ACL`).
    var customFields: [(name: String, field: Field)] {
        fields.filter { !["objectId", "createdAt", "updatedAt", "ACL"].contains($0.name) }
    }
}

/// The classes of a schema, in parse-server's order: Parse's own classes (`_User`...) first, then by name.
public struct ParseClassDirectory: Sendable, Equatable {
    public private(set) var classes: [ParseClassDefinition]
    private var byName: [String: Int]

    public init(_ classes: [ParseClassDefinition]) {
        self.classes = classes.sorted { lhs, rhs in
            let lhsOwn = lhs.className.hasPrefix("_"), rhsOwn = rhs.className.hasPrefix("_")
            if lhsOwn != rhsOwn { return lhsOwn }
            return lhs.className < rhs.className
        }
        byName = Dictionary(self.classes.enumerated().map { ($0.element.className, $0.offset) }) { first, _ in first }
    }

    /// From `GET /schemas`' answer (`{"results":[{"className","fields":{...}}]}`). Auth data columns are left out,
    /// as parse-server leaves them out, and so are classes whose names GraphQL cannot carry.
    public init(schemasAnswer: JSONValue) {
        var classes: [ParseClassDefinition] = []
        for entry in schemasAnswer["results"]?.arrayValue ?? [] {
            guard let className = entry["className"]?.stringValue, Self.isGraphQLName(className) else { continue }
            var fields: [(name: String, field: ParseClassDefinition.Field)] = []
            for (name, description) in entry["fields"]?.objectValue ?? [:] {
                guard let type = description["type"]?.stringValue, Self.isGraphQLName(name),
                      !(className == "_User" && name.hasPrefix("_auth_data_")) else { continue }
                fields.append((name, ParseClassDefinition.Field(type: type, targetClass: description["targetClass"]?.stringValue,
                                                                required: description["required"]?.boolValue ?? false)))
            }
            fields.sort { $0.name < $1.name }
            classes.append(ParseClassDefinition(className: className, fields: fields))
        }
        self.init(classes)
    }

    public subscript(className: String) -> ParseClassDefinition? { byName[className].map { classes[$0] } }

    static func isGraphQLName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first == UInt8(ascii: "_") || (first | 0x20 >= UInt8(ascii: "a") && first | 0x20 <= UInt8(ascii: "z")) else {
            return false
        }
        return name.utf8.allSatisfy { $0 == UInt8(ascii: "_") || ($0 | 0x20 >= UInt8(ascii: "a") && $0 | 0x20 <= UInt8(ascii: "z"))
            || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
    }
}
