/// The introspection types (`__Schema`, `__Type`, ...) and the `__schema` and `__type` fields of the query root, as
/// the specification defines them: what clients read to build a schema of their own. Their values are the schema's
/// own definitions: a `__Type` is a `GraphQLTypeReference`, a `__Field` a `GraphQLFieldDefinition`, and so on.
enum GraphQLIntrospection {
    /// The value `__schema` resolves to; its fields read the schema from the resolver's info.
    struct SchemaValue: Sendable {}

    static let schemaField = GraphQLFieldDefinition(
        "__schema", .nonNull(.named("__Schema")), description: "Access the current type schema of this server.",
        resolve: { _, _, _ in SchemaValue() })

    static let typeField = GraphQLFieldDefinition(
        "__type", .named("__Type"), description: "Request the type information of a single type.",
        arguments: [GraphQLArgumentDefinition("name", .nonNull(.named("String")))],
        resolve: { _, arguments, info in
            guard case .string(let name)? = arguments["name"], info.schema[name] != nil else { return GraphQLData.null }
            return GraphQLTypeReference.named(name)
        })

    private static func list(_ name: String) -> GraphQLTypeReference { .nonNull(.list(.nonNull(.named(name)))) }
    private static let string = GraphQLTypeReference.named("String")
    private static let includeDeprecated = [GraphQLArgumentDefinition("includeDeprecated", .named("Boolean"),
                                                                        defaultValue: .boolean(false))]

    /// `body` with the source as `Source`; anything else resolves to null.
    private static func on<Source: Sendable>(_: Source.Type, _ body: @escaping @Sendable (Source, [String: GraphQLData], GraphQLResolveInfo) -> any Sendable) -> GraphQLResolver {
        { source, arguments, info in
            guard let source = source as? Source else { return GraphQLData.null }
            return body(source, arguments, info)
        }
    }

    private static func text(_ value: String?) -> GraphQLData { value.map(GraphQLData.string) ?? .null }

    private static func shown(_ deprecationReason: String?, _ arguments: [String: GraphQLData]) -> Bool {
        deprecationReason == nil || arguments["includeDeprecated"] == .boolean(true)
    }

    static let types: [GraphQLNamedType] = [
        .object("__Schema", description: "A GraphQL Schema defines the capabilities of a GraphQL server. It exposes all available types and directives on the server, as well as the entry points for query, mutation, and subscription operations.", fields: [
            GraphQLFieldDefinition("description", string, resolve: on(SchemaValue.self) { _, _, info in text(info.schema.description) }),
            GraphQLFieldDefinition("types", list("__Type"), description: "A list of all types supported by this server.",
                                   resolve: on(SchemaValue.self) { _, _, info in info.schema.typeNames.map { GraphQLTypeReference.named($0) } as [any Sendable] }),
            GraphQLFieldDefinition("queryType", .nonNull(.named("__Type")), description: "The type that query operations will be rooted at.",
                                   resolve: on(SchemaValue.self) { _, _, info in GraphQLTypeReference.named(info.schema.queryType) }),
            GraphQLFieldDefinition("mutationType", .named("__Type"), description: "If this server supports mutation, the type that mutation operations will be rooted at.",
                                   resolve: on(SchemaValue.self) { _, _, info in rootType(info.schema.mutationType) }),
            GraphQLFieldDefinition("subscriptionType", .named("__Type"), description: "If this server support subscription, the type that subscription operations will be rooted at.",
                                   resolve: on(SchemaValue.self) { _, _, info in rootType(info.schema.subscriptionType) }),
            GraphQLFieldDefinition("directives", list("__Directive"), description: "A list of all directives supported by this server.",
                                   resolve: on(SchemaValue.self) { _, _, info in info.schema.directives as [any Sendable] }),
        ]),
        .object("__Type", description: "The fundamental unit of any GraphQL Schema is the type. There are many kinds of types in GraphQL as represented by the `__TypeKind` enum.", fields: [
            GraphQLFieldDefinition("kind", .nonNull(.named("__TypeKind")), resolve: on(GraphQLTypeReference.self) { type, _, info in
                switch type {
                case .list: GraphQLData.string("LIST")
                case .nonNull: GraphQLData.string("NON_NULL")
                case .named(let name): if let kind = info.schema[name]?.kind { GraphQLData.string(kind.rawValue) } else { GraphQLData.null }
                }
            }),
            GraphQLFieldDefinition("name", string, resolve: on(GraphQLTypeReference.self) { type, _, _ in
                if case .named(let name) = type { GraphQLData.string(name) } else { GraphQLData.null }
            }),
            GraphQLFieldDefinition("description", string, resolve: on(GraphQLTypeReference.self) { type, _, info in
                text(named(type, info)?.description)
            }),
            GraphQLFieldDefinition("specifiedByURL", string, resolve: { _, _, _ in GraphQLData.null }),
            GraphQLFieldDefinition("fields", .list(.nonNull(.named("__Field"))), arguments: includeDeprecated,
                                   resolve: on(GraphQLTypeReference.self) { type, arguments, info in
                guard let named = named(type, info), named.kind == .object || named.kind == .interface else { return GraphQLData.null }
                return named.fields.filter { shown($0.deprecationReason, arguments) } as [any Sendable]
            }),
            GraphQLFieldDefinition("interfaces", .list(.nonNull(.named("__Type"))), resolve: on(GraphQLTypeReference.self) { type, _, info in
                guard let named = named(type, info), named.kind == .object || named.kind == .interface else { return GraphQLData.null }
                return named.interfaces.map { GraphQLTypeReference.named($0) } as [any Sendable]
            }),
            GraphQLFieldDefinition("possibleTypes", .list(.nonNull(.named("__Type"))), resolve: on(GraphQLTypeReference.self) { type, _, info in
                guard let named = named(type, info), named.kind == .union || named.kind == .interface else { return GraphQLData.null }
                return info.schema.possibleTypes(of: named).map { GraphQLTypeReference.named($0) } as [any Sendable]
            }),
            GraphQLFieldDefinition("enumValues", .list(.nonNull(.named("__EnumValue"))), arguments: includeDeprecated,
                                   resolve: on(GraphQLTypeReference.self) { type, arguments, info in
                guard let named = named(type, info), named.kind == .enumeration else { return GraphQLData.null }
                return named.enumValues.filter { shown($0.deprecationReason, arguments) } as [any Sendable]
            }),
            GraphQLFieldDefinition("inputFields", .list(.nonNull(.named("__InputValue"))), arguments: includeDeprecated,
                                   resolve: on(GraphQLTypeReference.self) { type, arguments, info in
                guard let named = named(type, info), named.kind == .inputObject else { return GraphQLData.null }
                return named.inputFields.filter { shown($0.deprecationReason, arguments) } as [any Sendable]
            }),
            GraphQLFieldDefinition("ofType", .named("__Type"), resolve: on(GraphQLTypeReference.self) { type, _, _ in
                switch type {
                case .list(let inner), .nonNull(let inner): inner
                case .named: GraphQLData.null
                }
            }),
            GraphQLFieldDefinition("isOneOf", .named("Boolean"), resolve: on(GraphQLTypeReference.self) { type, _, info in
                named(type, info)?.kind == .inputObject ? GraphQLData.boolean(false) : GraphQLData.null
            }),
        ]),
        .object("__Field", description: "Object and Interface types are described by a list of Fields, each of which has a name, potentially a list of arguments, and a return type.", fields: [
            GraphQLFieldDefinition("name", .nonNull(string), resolve: on(GraphQLFieldDefinition.self) { field, _, _ in GraphQLData.string(field.name) }),
            GraphQLFieldDefinition("description", string, resolve: on(GraphQLFieldDefinition.self) { field, _, _ in text(field.description) }),
            GraphQLFieldDefinition("args", list("__InputValue"), arguments: includeDeprecated, resolve: on(GraphQLFieldDefinition.self) { field, arguments, _ in
                field.arguments.filter { shown($0.deprecationReason, arguments) } as [any Sendable]
            }),
            GraphQLFieldDefinition("type", .nonNull(.named("__Type")), resolve: on(GraphQLFieldDefinition.self) { field, _, _ in field.type }),
            GraphQLFieldDefinition("isDeprecated", .nonNull(.named("Boolean")), resolve: on(GraphQLFieldDefinition.self) { field, _, _ in
                GraphQLData.boolean(field.deprecationReason != nil)
            }),
            GraphQLFieldDefinition("deprecationReason", string, resolve: on(GraphQLFieldDefinition.self) { field, _, _ in text(field.deprecationReason) }),
        ]),
        .object("__InputValue", description: "Arguments provided to Fields or Directives and the input fields of an InputObject are represented as Input Values which describe their type and optionally a default value.", fields: [
            GraphQLFieldDefinition("name", .nonNull(string), resolve: on(GraphQLArgumentDefinition.self) { value, _, _ in GraphQLData.string(value.name) }),
            GraphQLFieldDefinition("description", string, resolve: on(GraphQLArgumentDefinition.self) { value, _, _ in text(value.description) }),
            GraphQLFieldDefinition("type", .nonNull(.named("__Type")), resolve: on(GraphQLArgumentDefinition.self) { value, _, _ in value.type }),
            GraphQLFieldDefinition("defaultValue", string, description: "A GraphQL-formatted string representing the default value for this input value.",
                                   resolve: on(GraphQLArgumentDefinition.self) { value, _, info in
                if let defaultValue = value.defaultValue { GraphQLData.string(literal(defaultValue, as: value.type, info.schema)) } else { GraphQLData.null }
            }),
            GraphQLFieldDefinition("isDeprecated", .nonNull(.named("Boolean")), resolve: on(GraphQLArgumentDefinition.self) { value, _, _ in
                GraphQLData.boolean(value.deprecationReason != nil)
            }),
            GraphQLFieldDefinition("deprecationReason", string, resolve: on(GraphQLArgumentDefinition.self) { value, _, _ in text(value.deprecationReason) }),
        ]),
        .object("__EnumValue", description: "One possible value for a given Enum. Enum values are unique values, not a placeholder for a string or numeric value. However an Enum value is returned in a JSON response as a string.", fields: [
            GraphQLFieldDefinition("name", .nonNull(string), resolve: on(GraphQLEnumValueDefinition.self) { value, _, _ in GraphQLData.string(value.name) }),
            GraphQLFieldDefinition("description", string, resolve: on(GraphQLEnumValueDefinition.self) { value, _, _ in text(value.description) }),
            GraphQLFieldDefinition("isDeprecated", .nonNull(.named("Boolean")), resolve: on(GraphQLEnumValueDefinition.self) { value, _, _ in
                GraphQLData.boolean(value.deprecationReason != nil)
            }),
            GraphQLFieldDefinition("deprecationReason", string, resolve: on(GraphQLEnumValueDefinition.self) { value, _, _ in text(value.deprecationReason) }),
        ]),
        .object("__Directive", description: "A Directive provides a way to describe alternate runtime execution and type validation behavior in a GraphQL document.", fields: [
            GraphQLFieldDefinition("name", .nonNull(string), resolve: on(GraphQLDirectiveDefinition.self) { value, _, _ in GraphQLData.string(value.name) }),
            GraphQLFieldDefinition("description", string, resolve: on(GraphQLDirectiveDefinition.self) { value, _, _ in text(value.description) }),
            GraphQLFieldDefinition("isRepeatable", .nonNull(.named("Boolean")), resolve: on(GraphQLDirectiveDefinition.self) { value, _, _ in
                GraphQLData.boolean(value.isRepeatable)
            }),
            GraphQLFieldDefinition("locations", list("__DirectiveLocation"), resolve: on(GraphQLDirectiveDefinition.self) { value, _, _ in
                GraphQLData.list(value.locations.map(GraphQLData.string))
            }),
            GraphQLFieldDefinition("args", list("__InputValue"), arguments: includeDeprecated, resolve: on(GraphQLDirectiveDefinition.self) { value, arguments, _ in
                value.arguments.filter { shown($0.deprecationReason, arguments) } as [any Sendable]
            }),
        ]),
        .enumeration("__TypeKind", description: "An enum describing what kind of type a given `__Type` is.",
                     values: ["SCALAR", "OBJECT", "INTERFACE", "UNION", "ENUM", "INPUT_OBJECT", "LIST", "NON_NULL"].map { GraphQLEnumValueDefinition($0) }),
        .enumeration("__DirectiveLocation", description: "A Directive can be adjacent to many parts of the GraphQL language, a __DirectiveLocation describes one such possible adjacencies.",
                     values: ["QUERY", "MUTATION", "SUBSCRIPTION", "FIELD", "FRAGMENT_DEFINITION", "FRAGMENT_SPREAD", "INLINE_FRAGMENT",
                              "VARIABLE_DEFINITION", "SCHEMA", "SCALAR", "OBJECT", "FIELD_DEFINITION", "ARGUMENT_DEFINITION", "INTERFACE",
                              "UNION", "ENUM", "ENUM_VALUE", "INPUT_OBJECT", "INPUT_FIELD_DEFINITION"].map { GraphQLEnumValueDefinition($0) }),
    ]

    private static func rootType(_ name: String?) -> any Sendable {
        if let name { GraphQLTypeReference.named(name) } else { GraphQLData.null }
    }

    private static func named(_ type: GraphQLTypeReference, _ info: GraphQLResolveInfo) -> GraphQLNamedType? {
        if case .named(let name) = type { info.schema[name] } else { nil }
    }

    /// A coerced input value as GraphQL literal text (`defaultValue`): enum values bare, strings quoted.
    static func literal(_ value: GraphQLData, as type: GraphQLTypeReference, _ schema: GraphQLSchema) -> String {
        switch (type, value) {
        case (.nonNull(let inner), _): return literal(value, as: inner, schema)
        case (.list(let inner), .list(let items)): return "[" + items.map { literal($0, as: inner, schema) }.joined(separator: ", ") + "]"
        case (.list(let inner), _): return literal(value, as: inner, schema)
        case (.named(let name), .string(let text)) where schema[name]?.kind == .enumeration: return text
        case (.named(let name), .object(let members)):
            let fields = schema[name]?.inputFields ?? []
            return "{" + members.map { member in
                "\(member.key): " + literal(member.value, as: fields.first { $0.name == member.key }?.type ?? .named("String"), schema)
            }.joined(separator: ", ") + "}"
        default: return value.jsonText
        }
    }
}
