/// What a resolver gets besides its parent's value and its arguments.
public struct GraphQLResolveInfo: Sendable {
    public var fieldName: String
    /// The response keys and list indexes from the root to this field.
    public var path: [GraphQLPathElement]
    public var parentType: String
    public var schema: GraphQLSchema
    /// Every field of the selection this value was asked with, merged (aliases and fragments included).
    public var fieldNodes: [GraphQLField]
    public var variables: [String: GraphQLData]
    /// The fragments of the document, for resolvers that look ahead into the selection.
    public var fragments: [String: GraphQLFragment]
    /// The request's context, as given to `GraphQLExecutor.execute`.
    public var context: any Sendable
}

public enum GraphQLPathElement: Sendable, Hashable {
    case key(String)
    case index(Int)
}

/// Produces a field's value from its parent's (`source`) and its coerced arguments. The value is a `GraphQLData`, a
/// list of values (`[any Sendable]`), or anything an object type's own resolvers understand as their source.
public typealias GraphQLResolver = @Sendable (_ source: any Sendable, _ arguments: [String: GraphQLData],
                                              _ info: GraphQLResolveInfo) async throws -> any Sendable

/// Names the object type of a value whose field has an interface or union type.
public typealias GraphQLTypeResolver = @Sendable (_ value: any Sendable, _ schema: GraphQLSchema) -> String?

public struct GraphQLArgumentDefinition: Sendable {
    public var name: String
    public var description: String?
    public var type: GraphQLTypeReference
    /// Already coerced; written back as GraphQL literal text by introspection.
    public var defaultValue: GraphQLData?
    public var deprecationReason: String?

    public init(_ name: String, _ type: GraphQLTypeReference, description: String? = nil, defaultValue: GraphQLData? = nil,
                deprecationReason: String? = nil) {
        self.name = name
        self.type = type
        self.description = description
        self.defaultValue = defaultValue
        self.deprecationReason = deprecationReason
    }
}

public struct GraphQLFieldDefinition: Sendable {
    public var name: String
    public var description: String?
    public var type: GraphQLTypeReference
    public var arguments: [GraphQLArgumentDefinition]
    public var deprecationReason: String?
    /// Nil: the member of the parent's `GraphQLData` object with the field's name.
    public var resolve: GraphQLResolver?
    /// The resolver waits on something outside the process (a call to a service): in a query, such fields run beside
    /// their siblings, and the objects of a list whose selection has one are completed several at a time.
    public var waits: Bool

    public init(_ name: String, _ type: GraphQLTypeReference, description: String? = nil,
                arguments: [GraphQLArgumentDefinition] = [], deprecationReason: String? = nil,
                waits: Bool = false, resolve: GraphQLResolver? = nil) {
        self.name = name
        self.type = type
        self.description = description
        self.arguments = arguments
        self.deprecationReason = deprecationReason
        self.waits = waits
        self.resolve = resolve
    }
}

public struct GraphQLEnumValueDefinition: Sendable {
    public var name: String
    public var description: String?
    public var deprecationReason: String?

    public init(_ name: String, description: String? = nil, deprecationReason: String? = nil) {
        self.name = name
        self.description = description
        self.deprecationReason = deprecationReason
    }
}

/// A named type of the schema.
public struct GraphQLNamedType: Sendable {
    public enum Kind: String, Sendable {
        case scalar = "SCALAR", object = "OBJECT", interface = "INTERFACE", union = "UNION", enumeration = "ENUM"
        case inputObject = "INPUT_OBJECT"
    }

    public var name: String
    public var kind: Kind
    public var description: String?
    /// Object and interface types.
    public var fields: [GraphQLFieldDefinition] = []
    /// Object types: the interfaces they implement.
    public var interfaces: [String] = []
    /// Union types: their members.
    public var possibleTypes: [String] = []
    public var enumValues: [GraphQLEnumValueDefinition] = []
    public var inputFields: [GraphQLArgumentDefinition] = []
    /// Interfaces and unions.
    public var resolveType: GraphQLTypeResolver?
    /// Scalars: the value as the response carries it, or nil when it cannot be one.
    public var serialize: (@Sendable (GraphQLData) -> GraphQLData?)?
    /// Scalars: an input value (a literal or a variable's) as the resolvers get it, or nil when it is not one.
    public var parse: (@Sendable (GraphQLData) -> GraphQLData?)?

    public static func object(_ name: String, description: String? = nil, interfaces: [String] = [],
                              fields: [GraphQLFieldDefinition]) -> GraphQLNamedType {
        var type = GraphQLNamedType(name: name, kind: .object, description: description)
        type.fields = fields
        type.interfaces = interfaces
        return type
    }

    public static func interface(_ name: String, description: String? = nil, fields: [GraphQLFieldDefinition],
                                 resolveType: @escaping GraphQLTypeResolver) -> GraphQLNamedType {
        var type = GraphQLNamedType(name: name, kind: .interface, description: description)
        type.fields = fields
        type.resolveType = resolveType
        return type
    }

    public static func union(_ name: String, description: String? = nil, members: [String],
                             resolveType: @escaping GraphQLTypeResolver) -> GraphQLNamedType {
        var type = GraphQLNamedType(name: name, kind: .union, description: description)
        type.possibleTypes = members
        type.resolveType = resolveType
        return type
    }

    public static func enumeration(_ name: String, description: String? = nil,
                                   values: [GraphQLEnumValueDefinition]) -> GraphQLNamedType {
        var type = GraphQLNamedType(name: name, kind: .enumeration, description: description)
        type.enumValues = values
        return type
    }

    public static func inputObject(_ name: String, description: String? = nil,
                                   fields: [GraphQLArgumentDefinition]) -> GraphQLNamedType {
        var type = GraphQLNamedType(name: name, kind: .inputObject, description: description)
        type.inputFields = fields
        return type
    }

    /// A scalar that takes and gives any value as it is (Parse's `Object`, `Any`, `Date` inputs...), unless told how.
    public static func scalar(_ name: String, description: String? = nil,
                              serialize: @escaping @Sendable (GraphQLData) -> GraphQLData? = { $0 },
                              parse: @escaping @Sendable (GraphQLData) -> GraphQLData? = { $0 }) -> GraphQLNamedType {
        var type = GraphQLNamedType(name: name, kind: .scalar, description: description)
        type.serialize = serialize
        type.parse = parse
        return type
    }

    public func field(_ name: String) -> GraphQLFieldDefinition? { fields.first { $0.name == name } }
}

public struct GraphQLDirectiveDefinition: Sendable {
    public var name: String
    public var description: String?
    public var locations: [String]
    public var arguments: [GraphQLArgumentDefinition]
    public var isRepeatable = false
}

/// The types a server offers and its root types. The specification's scalars and directives are always there.
public struct GraphQLSchema: Sendable {
    public private(set) var types: [String: GraphQLNamedType] = [:]
    /// Type names in the order they were given, for introspection.
    public private(set) var typeNames: [String] = []
    public var queryType: String
    public var mutationType: String?
    public var subscriptionType: String?
    public var directives: [GraphQLDirectiveDefinition]
    public var description: String?

    public init(query: String, mutation: String? = nil, subscription: String? = nil, types: [GraphQLNamedType]) {
        queryType = query
        mutationType = mutation
        subscriptionType = subscription
        directives = Self.specifiedDirectives
        for type in Self.specifiedScalars + types + GraphQLIntrospection.types { add(type) }
    }

    /// Adds `type`, replacing one of the same name.
    public mutating func add(_ type: GraphQLNamedType) {
        if types[type.name] == nil { typeNames.append(type.name) }
        types[type.name] = type
    }

    public subscript(name: String) -> GraphQLNamedType? { types[name] }

    /// The field `name` of `type`, the query root's `__schema` and `__type` included.
    func field(_ name: String, on type: GraphQLNamedType) -> GraphQLFieldDefinition? {
        if type.name == queryType {
            if name == "__schema" { return GraphQLIntrospection.schemaField }
            if name == "__type" { return GraphQLIntrospection.typeField }
        }
        return type.field(name)
    }

    /// The object types `abstract` (an interface or a union) may resolve to.
    public func possibleTypes(of abstract: GraphQLNamedType) -> [String] {
        switch abstract.kind {
        case .union: abstract.possibleTypes
        case .interface: typeNames.filter { types[$0]?.kind == .object && types[$0]?.interfaces.contains(abstract.name) == true }
        default: []
        }
    }

    static let specifiedScalars: [GraphQLNamedType] = [
        .scalar("Int", description: "The `Int` scalar type represents non-fractional signed whole numeric values. Int can represent values between -(2^31) and 2^31 - 1.",
                serialize: { value in
                    switch value {
                    case .int(let number) where Int32(exactly: number) != nil: value
                    case .float(let number) where number.rounded() == number && Int32(exactly: number) != nil: .int(Int(number))
                    case .boolean(let flag): .int(flag ? 1 : 0)
                    default: nil
                    }
                },
                parse: { value in if case .int(let number) = value, Int32(exactly: number) != nil { value } else { nil } }),
        .scalar("Float", description: "The `Float` scalar type represents signed double-precision fractional values as specified by [IEEE 754](https://en.wikipedia.org/wiki/IEEE_floating_point).",
                serialize: { value in
                    switch value {
                    case .int(let number): .float(Double(number))
                    case .float(let number) where number.isFinite: value
                    case .boolean(let flag): .float(flag ? 1 : 0)
                    default: nil
                    }
                },
                parse: { value in
                    switch value {
                    case .int(let number): .float(Double(number))
                    case .float(let number) where number.isFinite: value
                    default: nil
                    }
                }),
        .scalar("String", description: "The `String` scalar type represents textual data, represented as UTF-8 character sequences. The String type is most often used by GraphQL to represent free-form human-readable text.",
                serialize: { value in
                    switch value {
                    case .string: value
                    case .int(let number): .string(String(number))
                    case .float(let number): .string(GraphQLData.float(number).jsonText)
                    case .boolean(let flag): .string(flag ? "true" : "false")
                    default: nil
                    }
                },
                parse: { value in if case .string = value { value } else { nil } }),
        .scalar("Boolean", description: "The `Boolean` scalar type represents `true` or `false`.",
                serialize: { value in if case .boolean = value { value } else { nil } },
                parse: { value in if case .boolean = value { value } else { nil } }),
        .scalar("ID", description: "The `ID` scalar type represents a unique identifier, often used to refetch an object or as key for a cache. The ID type appears in a JSON response as a String; however, it is not intended to be human-readable. When expected as an input type, any string (such as `\"4\"`) or integer (such as `4`) input value will be accepted as an ID.",
                serialize: { value in
                    switch value {
                    case .string: value
                    case .int(let number): .string(String(number))
                    default: nil
                    }
                },
                parse: { value in
                    switch value {
                    case .string: value
                    case .int(let number): .string(String(number))
                    default: nil
                    }
                }),
    ]

    static let specifiedDirectives: [GraphQLDirectiveDefinition] = [
        GraphQLDirectiveDefinition(
            name: "include", description: "Directs the executor to include this field or fragment only when the `if` argument is true.",
            locations: ["FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"],
            arguments: [GraphQLArgumentDefinition("if", .nonNull(.named("Boolean")), description: "Included when true.")]),
        GraphQLDirectiveDefinition(
            name: "skip", description: "Directs the executor to skip this field or fragment when the `if` argument is true.",
            locations: ["FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"],
            arguments: [GraphQLArgumentDefinition("if", .nonNull(.named("Boolean")), description: "Skipped when true.")]),
        GraphQLDirectiveDefinition(
            name: "deprecated", description: "Marks an element of a GraphQL schema as no longer supported.",
            locations: ["FIELD_DEFINITION", "ARGUMENT_DEFINITION", "INPUT_FIELD_DEFINITION", "ENUM_VALUE"],
            arguments: [GraphQLArgumentDefinition("reason", .named("String"), defaultValue: .string("No longer supported"))]),
        GraphQLDirectiveDefinition(
            name: "specifiedBy", description: "Exposes a URL that specifies the behavior of this scalar.",
            locations: ["SCALAR"], arguments: [GraphQLArgumentDefinition("url", .nonNull(.named("String")))]),
    ]
}
