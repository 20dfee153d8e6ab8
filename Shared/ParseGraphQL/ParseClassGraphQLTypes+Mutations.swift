import GraphQL
import ParseWire

/// A class's mutations: `create<Class>`, `update<Class>`, `delete<Class>` (or their aliases), as parse-server's
/// `parseClassMutations` makes them.
extension ParseClassGraphQLTypes {
    var mutations: (types: [GraphQLNamedType], fields: [GraphQLFieldDefinition]) {
        let className = self.className, key = parseClass.graphQLFieldName
        let result = [GraphQLFieldDefinition(key, T.nonNull(name), description: "This is the created object.")]
        let create = RelayMutation.make(config?.createAlias ?? "create\(name)", typeName: "Create\(name)",
            description: "The create\(name) mutation can be used to create a new object of the \(name) class.",
            inputFields: [GraphQLArgumentDefinition("fields", .named("Create\(name)FieldsInput"), description: "These are the fields that will be used to create the new object.")],
            outputFields: result) { input, info, context in
            let fields = try await ParseFieldsInput(classes: context.classes, backend: context.backend).parseFields(input["fields"], className: className)
            let created = try await context.backend.rest("POST", "classes/\(className)", query: [:], body: .object(fields))
            guard let objectId = created["objectId"]?.stringValue else { throw ParseError(.internalServerError, "Internal server error") }
            var object = GraphQLData(json: .object(Self.deletedAsNull(fields)))
            for member in GraphQLData(json: created).objectMembers ?? [] { object = object.setting(member.key, member.value) }
            if let createdAt = created["createdAt"] { object = object.setting("updatedAt", GraphQLData(json: createdAt)) }
            object = try await Self.refetched(object, className: className, objectId: objectId, selection: info.selectedFields[key],
                                              known: ["id", "objectId", "createdAt", "updatedAt"], context: context)
            return [GraphQLObjectMember(key, object)]
        }
        let update = RelayMutation.make(config?.updateAlias ?? "update\(name)", typeName: "Update\(name)",
            description: "The update\(name) mutation can be used to update an object of the \(name) class.",
            inputFields: [GraphQLArgumentDefinition("id", T.nonNull("ID"), description: "This is the object id. You can use either the global or the object id."),
                          GraphQLArgumentDefinition("fields", .named("Update\(name)FieldsInput"), description: "These are the fields that will be used to update the object.")],
            outputFields: [GraphQLFieldDefinition(key, T.nonNull(name), description: "This is the updated object.")]) { input, info, context in
            let objectId = RelayIdentifiers.objectId(input["id"]?.stringValue ?? "", of: className)
            guard !objectId.isEmpty, !objectId.contains("/") else { throw ParseError(.objectNotFound, "Object not found.") }
            let fields = try await ParseFieldsInput(classes: context.classes, backend: context.backend).parseFields(input["fields"], className: className)
            let updated = try await context.backend.rest("PUT", "classes/\(className)/\(objectId)", query: [:], body: .object(fields))
            var object = GraphQLData.object([GraphQLObjectMember("objectId", .string(objectId))])
            for member in GraphQLData(json: updated).objectMembers ?? [] { object = object.setting(member.key, member.value) }
            for member in GraphQLData(json: .object(Self.deletedAsNull(fields))).objectMembers ?? [] { object = object.setting(member.key, member.value) }
            object = try await Self.refetched(object, className: className, objectId: objectId, selection: info.selectedFields[key],
                                              known: ["id", "objectId", "updatedAt"], context: context)
            return [GraphQLObjectMember(key, object)]
        }
        let delete = RelayMutation.make(config?.destroyAlias ?? "delete\(name)", typeName: "Delete\(name)",
            description: "The delete\(name) mutation can be used to delete an object of the \(name) class.",
            inputFields: [GraphQLArgumentDefinition("id", T.nonNull("ID"), description: "This is the object id. You can use either the global or the object id.")],
            outputFields: [GraphQLFieldDefinition(key, T.nonNull(name), description: "This is the deleted object.")]) { input, info, context in
            let objectId = RelayIdentifiers.objectId(input["id"]?.stringValue ?? "", of: className)
            guard !objectId.isEmpty, !objectId.contains("/") else { throw ParseError(.objectNotFound, "Object not found.") }
            let object = try await Self.refetched(.object([GraphQLObjectMember("objectId", .string(objectId))]), className: className,
                                                  objectId: objectId, selection: info.selectedFields[key], known: ["id", "objectId"],
                                                  context: context)
            _ = try await context.backend.rest("DELETE", "classes/\(className)/\(objectId)", query: [:], body: nil)
            return [GraphQLObjectMember(key, object)]
        }
        let enabled = [(create, config?.create ?? true), (update, config?.update ?? true), (delete, config?.destroy ?? true)].filter(\.1).map(\.0)
        return (enabled.flatMap(\.types), enabled.map(\.field))
    }

    /// The object as the mutation's answer: what the write's answer says, read again when the selection asks for more
    /// than `known`.
    static func refetched(_ object: GraphQLData, className: String, objectId: String, selection: GraphQLSelectedFields?,
                          known: Set<String>, context: ParseGraphQLContext) async throws -> GraphQLData {
        guard let selection, selection.names.contains(where: { !known.contains($0) }) else { return object }
        var merged = object
        let read = try await ParseObjectQueries(context: context).get(className, id: objectId, selection: selection)
        for member in read.objectMembers ?? [] { merged = merged.setting(member.key, member.value) }
        return merged
    }

    /// The write's fields with `Delete` operations as nulls, the way the object reads after it.
    static func deletedAsNull(_ fields: [String: JSONValue]) -> [String: JSONValue] {
        fields.mapValues { $0["__op"]?.stringValue == "Delete" ? .null : $0 }
    }
}
