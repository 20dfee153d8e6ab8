import GraphQL
import ParseWire

/// One Parse class's part of the schema, named and shaped as parse-server's `parseClassTypes`,
/// `parseClassQueries` and `parseClassMutations` make it: the object type `<Class>`, its connection and edge, its
/// inputs (`Create<Class>FieldsInput`, `Update<Class>FieldsInput`, `<Class>PointerInput`, `<Class>RelationInput`),
/// its constraints (`<Class>WhereInput`, `<Class>RelationWhereInput`) and order (`<Class>Order`); the queries
/// `<class>` and `<classes>`; the mutations `create<Class>`, `update<Class>`, `delete<Class>`.
struct ParseClassGraphQLTypes {
    let parseClass: ParseClassDefinition
    let classes: ParseClassDirectory
    /// The class's part of the GraphQL configuration (`/graphql-config`); nil: everything, under parse-server's names.
    var config: ParseGraphQLConfig.ClassConfig? = nil

    var name: String { parseClass.graphQLName }
    var className: String { parseClass.className }
    typealias T = ParseGraphQLDefaultTypes

    /// Fields a client reads: the class's own, `_User`'s password never.
    private var outputFields: [(name: String, field: ParseClassDefinition.Field)] {
        allowed(config?.outputFields).filter { !(className == "_User" && $0.name == "password") }
    }

    /// The class's own fields the configuration lists (all of them without a list), in the class's order.
    private func allowed(_ listed: [String]?) -> [(name: String, field: ParseClassDefinition.Field)] {
        guard let listed else { return parseClass.customFields }
        return parseClass.customFields.filter { listed.contains($0.name) }
    }

    /// What the constraints are on: every field with `id` after them, or the own fields the configuration lists.
    private var constraintFieldNames: [String] {
        config?.constraintFields == nil ? parseClass.fields.map(\.name) + ["id"] : allowed(config?.constraintFields).map(\.name)
    }

    /// What the orders are on, and in which directions: every field and `id` both ways unless configured (`id` both
    /// ways when the configuration lists none, as a GraphQL enum needs a value).
    private var sortFields: [(field: String, asc: Bool, desc: Bool)] {
        guard let configured = config?.sortFields else { return (parseClass.fields.map(\.name) + ["id"]).map { ($0, true, true) } }
        return configured.isEmpty ? [("id", true, true)] : configured
    }

    private var isCreateEnabled: Bool { config?.create ?? true }

    var types: [GraphQLNamedType] {
        [createFieldsInput, updateFieldsInput, pointerInput, relationInput, whereInput, relationWhereInput, orderEnum,
         objectType, edgeType, connectionType]
    }

    // MARK: Inputs

    private func inputType(_ field: ParseClassDefinition.Field) -> GraphQLTypeReference? {
        let target = field.targetClass.flatMap { classes[$0] }
        switch field.type {
        case "String": return .named("String")
        case "Number": return .named("Float")
        case "Boolean": return .named("Boolean")
        case "Array": return .list(.named("Any"))
        case "Object": return .named("Object")
        case "Date": return .named("Date")
        case "Pointer": return .named(target.map { "\($0.graphQLName)PointerInput" } ?? "Object")
        case "Relation": return .named(target.map { "\($0.graphQLName)RelationInput" } ?? "Object")
        case "File": return .named("FileInput")
        case "GeoPoint": return .named("GeoPointInput")
        case "Polygon": return T.listOf("GeoPointInput")
        case "Bytes": return .named("Bytes")
        case "ACL": return .named("ACLInput")
        default: return nil
        }
    }

    var createFieldsInputFields: [GraphQLArgumentDefinition] {
        [GraphQLArgumentDefinition("ACL", .named("ACLInput"))] + allowed(config?.createFields).compactMap { entry in
            inputType(entry.field).map { GraphQLArgumentDefinition(entry.name, entry.field.required ? .nonNull($0) : $0) }
        }
    }

    private var createFieldsInput: GraphQLNamedType {
        .inputObject("Create\(name)FieldsInput", description: "The Create\(name)FieldsInput input type is used in operations that involve creation of objects in the \(name) class.",
                     fields: createFieldsInputFields)
    }

    private var updateFieldsInput: GraphQLNamedType {
        .inputObject("Update\(name)FieldsInput", description: "The Update\(name)FieldsInput input type is used in operations that involve creation of objects in the \(name) class.",
                     fields: [GraphQLArgumentDefinition("ACL", .named("ACLInput"))] + allowed(config?.updateFields).compactMap { entry in
                         inputType(entry.field).map { GraphQLArgumentDefinition(entry.name, $0) }
                     })
    }

    private var pointerInput: GraphQLNamedType {
        .inputObject("\(name)PointerInput", description: "Allow to link OR add and link an object of the \(name) class.", fields: [
            GraphQLArgumentDefinition("link", .named("ID"), description: "Link an existing object from \(name) class. You can use either the global or the object id."),
        ] + (isCreateEnabled ? [GraphQLArgumentDefinition("createAndLink", .named("Create\(name)FieldsInput"), description: "Create and link an object from \(name) class.")] : []))
    }

    private var relationInput: GraphQLNamedType {
        .inputObject("\(name)RelationInput", description: "Allow to add, remove, createAndAdd objects of the \(name) class into a relation field.", fields: [
            GraphQLArgumentDefinition("add", .list(T.nonNull("ID")), description: "Add existing objects from the \(name) class into the relation. You can use either the global or the object ids."),
            GraphQLArgumentDefinition("remove", .list(T.nonNull("ID")), description: "Remove existing objects from the \(name) class out of the relation. You can use either the global or the object ids."),
        ] + (isCreateEnabled ? [GraphQLArgumentDefinition("createAndAdd", T.listOf("Create\(name)FieldsInput"), description: "Create and add objects of the \(name) class into the relation.")] : []))
    }

    private var whereInput: GraphQLNamedType {
        var fields: [GraphQLArgumentDefinition] = []
        for fieldName in constraintFieldNames where !["OR", "AND", "NOR"].contains(fieldName) {
            let parseName = fieldName == "id" ? "objectId" : fieldName
            let field = parseClass.field(parseName) ?? ParseClassDefinition.Field(type: "String", targetClass: nil, required: false)
            guard let type = T.whereInput(forParseType: field.type, targetClass: field.targetClass, fieldName: fieldName,
                                          classes: classes) else { continue }
            fields.append(GraphQLArgumentDefinition(fieldName, .named(type), description: "This is the object \(fieldName)."))
        }
        fields += ["OR", "AND", "NOR"].map { GraphQLArgumentDefinition($0, T.listOf("\(name)WhereInput"), description: "This is the \($0) operator to compound constraints.") }
        return .inputObject("\(name)WhereInput", description: "The \(name)WhereInput input type is used in operations that involve filtering objects of \(name) class.", fields: fields)
    }

    private var relationWhereInput: GraphQLNamedType {
        .inputObject("\(name)RelationWhereInput", fields: [
            GraphQLArgumentDefinition("have", .named("\(name)WhereInput"), description: "Run a relational/pointer query where at least one child object can match."),
            GraphQLArgumentDefinition("haveNot", .named("\(name)WhereInput"), description: "Run an inverted relational/pointer query where at least one child object can match."),
            GraphQLArgumentDefinition("exists", .named("Boolean"), description: "Check if the relation/pointer contains objects."),
        ])
    }

    private var orderEnum: GraphQLNamedType {
        .enumeration("\(name)Order", description: "The \(name)Order input type is used when sorting objects of the \(name) class.",
                     values: sortFields.flatMap { sort in
                         (sort.asc ? [GraphQLEnumValueDefinition("\(sort.field)_ASC")] : []) + (sort.desc ? [GraphQLEnumValueDefinition("\(sort.field)_DESC")] : [])
                     })
    }

    /// `where`, `order`, `skip`, Relay's connection arguments and `options`: a find's and a relation field's.
    var findArguments: [GraphQLArgumentDefinition] {
        [GraphQLArgumentDefinition("where", .named("\(name)WhereInput"), description: "These are the conditions that the objects need to match in order to be found."),
         GraphQLArgumentDefinition("order", T.listOf("\(name)Order"), description: "The fields to be used when sorting the data fetched."),
         GraphQLArgumentDefinition("skip", .named("Int"), description: "This is the number of objects that must be skipped to return."),
         GraphQLArgumentDefinition("after", .named("String"), description: "Returns the items in the list that come after the specified cursor."),
         GraphQLArgumentDefinition("first", .named("Int"), description: "Returns the first n items from the list."),
         GraphQLArgumentDefinition("before", .named("String"), description: "Returns the items in the list that come before the specified cursor."),
         GraphQLArgumentDefinition("last", .named("Int"), description: "Returns the last n items from the list."),
         GraphQLArgumentDefinition("options", .named("ReadOptionsInput"), description: "The read options for the query.")]
    }

    // MARK: Output

    private func outputType(_ field: ParseClassDefinition.Field) -> GraphQLTypeReference? {
        let target = field.targetClass.flatMap { classes[$0] }
        switch field.type {
        case "String": return .named("String")
        case "Number": return .named("Float")
        case "Boolean": return .named("Boolean")
        case "Array": return .list(.named("ArrayResult"))
        case "Object": return .named("Object")
        case "Date": return .named("Date")
        case "Pointer": return .named(target?.graphQLName ?? "Object")
        case "Relation": return .nonNull(.named(target.map { "\($0.graphQLName)Connection" } ?? "Object"))
        case "File": return .named("FileInfo")
        case "GeoPoint": return .named("GeoPoint")
        case "Polygon": return T.listOf("GeoPoint")
        case "Bytes": return .named("Bytes")
        case "ACL": return T.nonNull("ACL")
        default: return nil
        }
    }

    private var objectType: GraphQLNamedType {
        let className = self.className
        var fields = [GraphQLFieldDefinition("id", T.nonNull("ID"), description: "The ID of an object", resolve: { source, _, _ in
            guard let objectId = (source as? GraphQLData)?["objectId"]?.stringValue else { return GraphQLData.null }
            return GraphQLData.string(RelayIdentifiers.globalID(className: className, objectId: objectId))
        })] + T.parseObjectFields
        if className == "_User" { fields.append(GraphQLFieldDefinition("authDataResponse", .named("Object"), description: "auth provider response when triggered on signUp/logIn.")) }
        for (fieldName, field) in outputFields {
            guard var type = outputType(field) else { continue }
            if field.required, case .named = type { type = .nonNull(type) }
            fields.append(outputField(fieldName, field, type: type))
        }
        return .object(name, description: "The \(name) object type is used in operations that involve outputting objects of \(name) class.",
                       interfaces: ["ParseObject", "Node"], fields: fields)
    }

    private func outputField(_ fieldName: String, _ field: ParseClassDefinition.Field,
                             type: GraphQLTypeReference) -> GraphQLFieldDefinition {
        let description = "This is the object \(fieldName)."
        switch field.type {
        case "Relation":
            let owner = className
            let target = field.targetClass.flatMap { classes[$0] }
            return GraphQLFieldDefinition(fieldName, type, description: description,
                                          arguments: target.map { ParseClassGraphQLTypes(parseClass: $0, classes: classes).findArguments } ?? [],
                                          waits: true, resolve: { source, arguments, info in
                try await ParseGraphQLErrors.resolving(info) { context in
                    guard let target, let objectId = (source as? GraphQLData)?["objectId"]?.stringValue else { return GraphQLData.null }
                    var constraints = ParseWhereTranslation(classes: context.classes).parseWhere(arguments["where"], className: target.className)
                    constraints["$relatedTo"] = .object(["object": ParseFieldsInput.pointer(owner, objectId), "key": .string(fieldName)])
                    return try await Self.find(target.className, constraints: constraints, arguments: arguments, info: info, context: context)
                }
            })
        case "Polygon":
            return GraphQLFieldDefinition(fieldName, type, description: description, resolve: { source, _, _ in
                guard case .list(let coordinates)? = (source as? GraphQLData)?[fieldName]?["coordinates"] else { return GraphQLData.null }
                return GraphQLData.list(coordinates.map { pair in
                    guard case .list(let values) = pair, values.count == 2 else { return .null }
                    return .object([GraphQLObjectMember("latitude", values[0]), GraphQLObjectMember("longitude", values[1])])
                })
            })
        case "Array":
            return GraphQLFieldDefinition(fieldName, type, description: description, resolve: { source, _, _ in
                guard case .list(let items)? = (source as? GraphQLData)?[fieldName] else { return GraphQLData.null }
                return GraphQLData.list(items.map { item in
                    if item["__type"] == .string("Object"), item["className"] != nil, item["objectId"] != nil { return item }
                    return .object([GraphQLObjectMember("value", item)])
                })
            })
        default:
            return GraphQLFieldDefinition(fieldName, type, description: description)
        }
    }

    private var edgeType: GraphQLNamedType {
        .object("\(name)Edge", description: "An edge in a connection.", fields: [
            GraphQLFieldDefinition("node", .named(name), description: "The item at the end of the edge"),
            GraphQLFieldDefinition("cursor", T.nonNull("String"), description: "A cursor for use in pagination"),
        ])
    }

    private var connectionType: GraphQLNamedType {
        .object("\(name)Connection", description: "A connection to a list of items.", fields: [
            GraphQLFieldDefinition("pageInfo", T.nonNull("PageInfo"), description: "Information to aid in pagination."),
            GraphQLFieldDefinition("edges", .list(.named("\(name)Edge")), description: "A list of edges."),
            GraphQLFieldDefinition("count", T.nonNull("Int"), description: "This is the total matched objecs count that is returned when the count flag is set."),
        ])
    }

    // MARK: Queries

    var queries: [GraphQLFieldDefinition] {
        let className = self.className
        let getName = config?.getAlias ?? parseClass.graphQLFieldName
        let get = GraphQLFieldDefinition(getName, T.nonNull(name),
            description: "The \(parseClass.graphQLFieldName) query can be used to get an object of the \(name) class by its id.",
            arguments: [GraphQLArgumentDefinition("id", T.nonNull("ID"), description: "The id of the object."),
                        GraphQLArgumentDefinition("options", .named("ReadOptionsInput"), description: "The read options for the query.")],
            waits: true, resolve: { _, arguments, info in
                try await ParseGraphQLErrors.resolving(info) { context in
                    try await ParseObjectQueries(context: context).get(className, id: arguments["id"]?.stringValue ?? "",
                                                                       selection: info.selectedFields)
                }
            })
        let findName = config?.findAlias ?? Pluralization.plural(parseClass.graphQLFieldName)
        let find = GraphQLFieldDefinition(findName, T.nonNull("\(name)Connection"),
            description: "The \(findName) query can be used to find objects of the \(name) class.",
            arguments: findArguments,
            waits: true, resolve: { _, arguments, info in
                try await ParseGraphQLErrors.resolving(info) { context in
                    let constraints = ParseWhereTranslation(classes: context.classes).parseWhere(arguments["where"], className: className)
                    return try await Self.find(className, constraints: constraints, arguments: arguments, info: info, context: context)
                }
            })
        return ((config?.get ?? true) ? [get] : []) + ((config?.find ?? true) ? [find] : [])
    }

    static func find(_ className: String, constraints: [String: JSONValue], arguments: [String: GraphQLData],
                     info: GraphQLResolveInfo, context: ParseGraphQLContext) async throws -> GraphQLData {
        func int(_ name: String) -> Int? { if case .int(let value)? = arguments[name] { value } else { nil } }
        let page = try ParseObjectQueries.page(skip: int("skip"), first: int("first"), after: arguments["after"]?.stringValue,
                                               last: int("last"), before: arguments["before"]?.stringValue)
        var order: String?
        if case .list(let values)? = arguments["order"] {
            order = values.compactMap(\.stringValue).map(Self.parseOrder).joined(separator: ",")
        }
        return try await ParseObjectQueries(context: context).find(className, where: constraints, order: order, page: page,
                                                                    selection: info.selectedFields)
    }

    /// `<field>_ASC` as `field`, `<field>_DESC` as `-field`, `id` as `objectId`.
    static func parseOrder(_ value: String) -> String {
        let descending = value.hasSuffix("_DESC")
        var field = String(value.dropLast(descending ? 5 : 4))
        if field == "id" { field = "objectId" }
        return descending ? "-\(field)" : field
    }
}
