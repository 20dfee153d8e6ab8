import GraphQL
import ParseWire

/// The schema's own queries and mutations, master key only, as parse-server's `schemaQueries`, `schemaMutations` and
/// `schemaTypes` define them: `class(name:)`, `classes`, `createClass`, `updateClass`, `deleteClass`, with a class's
/// fields as `SchemaField`s of one type each. They go through the `/schemas` REST routes.
enum ParseSchemaGraphQL {
    private typealias T = ParseGraphQLDefaultTypes

    /// The field kinds by Parse type: the output type's name and, when a client can add one, its input's.
    private static let kinds: [(parseType: String, output: String, input: String?, list: String?)] = [
        ("String", "SchemaStringField", "SchemaStringFieldInput", "addStrings"),
        ("Number", "SchemaNumberField", "SchemaNumberFieldInput", "addNumbers"),
        ("Boolean", "SchemaBooleanField", "SchemaBooleanFieldInput", "addBooleans"),
        ("Array", "SchemaArrayField", "SchemaArrayFieldInput", "addArrays"),
        ("Object", "SchemaObjectField", "SchemaObjectFieldInput", "addObjects"),
        ("Date", "SchemaDateField", "SchemaDateFieldInput", "addDates"),
        ("File", "SchemaFileField", "SchemaFileFieldInput", "addFiles"),
        ("GeoPoint", "SchemaGeoPointField", "SchemaGeoPointFieldInput", "addGeoPoint"),
        ("Polygon", "SchemaPolygonField", "SchemaPolygonFieldInput", "addPolygons"),
        ("Bytes", "SchemaBytesField", "SchemaBytesFieldInput", "addBytes"),
        ("Pointer", "SchemaPointerField", "PointerFieldInput", "addPointers"),
        ("Relation", "SchemaRelationField", "RelationFieldInput", "addRelations"),
        ("ACL", "SchemaACLField", nil, nil),
    ]

    static var types: [GraphQLNamedType] {
        let name = GraphQLArgumentDefinition("name", T.nonNull("String"), description: "This is the field name.")
        let target = GraphQLArgumentDefinition("targetClassName", T.nonNull("String"), description: "This is the name of the target class for the field.")
        var types: [GraphQLNamedType] = [.inputObject("SchemaFieldInput", description: "The SchemaFieldInput is used to specify a field of an object class schema.", fields: [name])]
        for kind in kinds {
            let targeted = kind.parseType == "Pointer" || kind.parseType == "Relation"
            if let input = kind.input { types.append(.inputObject(input, fields: targeted ? [name, target] : [name])) }
            types.append(.object(kind.output, interfaces: ["SchemaField"], fields: [
                GraphQLFieldDefinition("name", T.nonNull("String"), description: "This is the field name."),
            ] + (targeted ? [GraphQLFieldDefinition("targetClassName", T.nonNull("String"), description: "This is the name of the target class for the field.")] : [])))
        }
        types.append(.interface("SchemaField", description: "The SchemaField interface type is used as a base type for the different supported fields of an object class schema.",
                                fields: [GraphQLFieldDefinition("name", T.nonNull("String"), description: "This is the field name.")]) { value, _ in
            let type = (value as? GraphQLData)?["type"]?.stringValue
            return kinds.first { $0.parseType == type }?.output
        })
        types.append(.inputObject("SchemaFieldsInput", description: "The CreateClassSchemaInput type is used to specify the schema for a new object class to be created.",
                                  fields: kinds.compactMap { kind in
            guard let list = kind.list, let input = kind.input else { return nil }
            return GraphQLArgumentDefinition(list, kind.parseType == "GeoPoint" ? .named(input) : T.listOf(input))
        } + [GraphQLArgumentDefinition("remove", T.listOf("SchemaFieldInput"), description: "These are the fields to be removed from the class schema.")]))
        types.append(.object("Class", description: "The Class type is used to return the information about an object class.", fields: [
            GraphQLFieldDefinition("name", T.nonNull("String"), description: "This is the name of the object class."),
            GraphQLFieldDefinition("schemaFields", .nonNull(T.listOf("SchemaField")), description: "These are the schema's fields of the object class."),
        ]))
        return types
    }

    static var queries: [GraphQLFieldDefinition] {
        [GraphQLFieldDefinition("class", T.nonNull("Class"), description: "The class query can be used to retrieve an existing object class.",
                                arguments: [GraphQLArgumentDefinition("name", T.nonNull("String"), description: "This is the name of the object class.")],
                                waits: true, resolve: { _, arguments, info in
            try await ParseGraphQLErrors.resolving(info) { context in
                try await classOutput(context.backend.get("schemas/\(try className(arguments["name"]))"))
            }
        }),
         GraphQLFieldDefinition("classes", .nonNull(T.listOf("Class")), description: "The classes query can be used to retrieve the existing object classes.",
                                waits: true, resolve: { _, _, info in
            try await ParseGraphQLErrors.resolving(info) { context in
                GraphQLData.list(try await (context.backend.get("schemas")["results"]?.arrayValue ?? []).map(classOutput))
            }
        })]
    }

    static var mutations: (types: [GraphQLNamedType], fields: [GraphQLFieldDefinition]) {
        let name = GraphQLArgumentDefinition("name", T.nonNull("String"), description: "This is the name of the object class.")
        let fields = GraphQLArgumentDefinition("schemaFields", .named("SchemaFieldsInput"), description: "These are the schema's fields of the object class.")
        let output = [GraphQLFieldDefinition("class", T.nonNull("Class"), description: "This is the created class.")]
        let create = RelayMutation.make("createClass", typeName: "CreateClass", description: "The createClass mutation can be used to create the schema for a new object class.",
                                                         inputFields: [name, fields], outputFields: output) { input, _, context in
            let className = try className(input["name"])
            let created = try await context.backend.rest("POST", "schemas/\(className)", query: [:], body: .object([
                "className": .string(className), "fields": .object(try parseFields(input["schemaFields"], existing: nil)),
            ]))
            return [GraphQLObjectMember("class", try classOutput(created))]
        }
        let update = RelayMutation.make("updateClass", typeName: "UpdateClass", description: "The updateClass mutation can be used to update the schema for an existing object class.",
                                                         inputFields: [name, fields], outputFields: output) { input, _, context in
            let className = try className(input["name"])
            let existing = try await context.backend.get("schemas/\(className)")["fields"]?.objectValue ?? [:]
            let updated = try await context.backend.rest("PUT", "schemas/\(className)", query: [:], body: .object([
                "className": .string(className), "fields": .object(try parseFields(input["schemaFields"], existing: existing)),
            ]))
            return [GraphQLObjectMember("class", try classOutput(updated))]
        }
        let delete = RelayMutation.make("deleteClass", typeName: "DeleteClass", description: "The deleteClass mutation can be used to delete an existing object class.",
                                                         inputFields: [name], outputFields: output) { input, _, context in
            let className = try className(input["name"])
            let existing = try await context.backend.get("schemas/\(className)")
            _ = try await context.backend.rest("DELETE", "schemas/\(className)", query: [:], body: nil)
            return [GraphQLObjectMember("class", try classOutput(existing))]
        }
        return (create.types + update.types + delete.types, [create.field, update.field, delete.field])
    }

    /// A class name as one segment of a path.
    private static func className(_ value: GraphQLData?) throws -> String {
        guard let name = value?.stringValue, !name.isEmpty, !name.contains("/") else {
            throw ParseError(.invalidClassName, "Invalid class name: \(value?.stringValue ?? "")")
        }
        return name
    }

    /// `{"name", "schemaFields": [{"name", "type", "targetClassName"}]}` of a `/schemas` class: Parse's own fields
    /// first, then the class's by name.
    private static func classOutput(_ parseClass: JSONValue) throws -> GraphQLData {
        guard let name = parseClass["className"]?.stringValue else { throw ParseError(.internalServerError, "Internal server error") }
        let fields = parseClass["fields"]?.objectValue ?? [:]
        let own = ["objectId", "updatedAt", "createdAt", "ACL"].filter { fields[$0] != nil }
        let names = own + fields.keys.filter { !own.contains($0) }.sorted()
        return .object([
            GraphQLObjectMember("name", .string(name)),
            GraphQLObjectMember("schemaFields", .list(names.map { field in
                var members = [GraphQLObjectMember("name", .string(field)),
                               GraphQLObjectMember("type", GraphQLData(json: fields[field]?["type"] ?? .null))]
                if let target = fields[field]?["targetClass"]?.stringValue { members.append(GraphQLObjectMember("targetClassName", .string(target))) }
                return .object(members)
            })),
        ])
    }

    /// parse-server's `transformToParse`: the fields to add by type, and with `existing` (an update) the fields to
    /// remove as `Delete` operations; a field named twice, or one the class has, is refused.
    static func parseFields(_ input: GraphQLData?, existing: [String: JSONValue]?) throws -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        var removed = Set<String>()
        if case .list(let items)? = input?["remove"] { removed = Set(items.compactMap { $0["name"]?.stringValue }) }
        for kind in kinds {
            guard let list = kind.list, let given = input?[list], !given.isNull else { continue }
            let entries: [GraphQLData] = if case .list(let items) = given { items } else { [given] }
            for entry in entries {
                guard let name = entry["name"]?.stringValue, !removed.contains(name) else { continue }
                if result[name] != nil || existing?[name] != nil {
                    throw ParseError(.invalidKeyName, "Duplicated field name: \(name)")
                }
                var field: [String: JSONValue] = ["type": .string(kind.parseType)]
                if let target = entry["targetClassName"]?.stringValue { field["targetClass"] = .string(target) }
                result[name] = .object(field)
            }
        }
        if let existing {
            for name in removed where existing[name] != nil { result[name] = .object(["__op": .string("Delete")]) }
        }
        return result
    }
}
