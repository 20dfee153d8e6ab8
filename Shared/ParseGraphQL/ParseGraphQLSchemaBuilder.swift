import GraphQL
import ParseWire

/// The GraphQL schema of a Parse schema, as parse-server's `ParseGraphQLSchema.load` builds it: the default types,
/// Relay's `node`, the schema's own types, each class's types, queries and mutations, then `health`, `viewer`,
/// `class`, `classes`, the users' mutations, `createFile`, `callCloudCode` (when Cloud Code has functions) and the
/// schema's mutations; and, beyond parse-server, each class's LiveQuery events as a subscription. A class whose
/// type names collide with names already taken is left out, as parse-server leaves it out.
struct ParseGraphQLSchemaBuilder {
    let classes: ParseClassDirectory
    let functionNames: [String]
    /// Which classes, fields, queries and mutations the schema has (`/graphql-config`).
    var config = ParseGraphQLConfig.none

    private typealias T = ParseGraphQLDefaultTypes

    private static let reservedTypeNames: Set<String> = [
        "String", "Boolean", "Int", "Float", "ID", "ArrayResult", "Query", "Mutation", "Subscription", "CreateFileInput",
        "CreateFilePayload", "Viewer", "SignUpInput", "SignUpPayload", "LogInInput", "LogInPayload", "LogOutInput",
        "LogOutPayload", "CloudCodeFunction", "CallCloudCodeInput", "CallCloudCodePayload", "CreateClassInput",
        "CreateClassPayload", "UpdateClassInput", "UpdateClassPayload", "DeleteClassInput", "DeleteClassPayload", "PageInfo",
        "LiveQueryEvent",
    ]
    private static let reservedQueries: Set<String> = ["health", "viewer", "class", "classes"]
    private static let reservedMutations: Set<String> = ["signUp", "logIn", "logOut", "createFile", "callCloudCode",
                                                         "createClass", "updateClass", "deleteClass"]

    func build() -> GraphQLSchema {
        var types = T.all + ParseSchemaGraphQL.types
        var taken = Set(types.map(\.name)).union(Self.reservedTypeNames).union(["Upload"])
        var queries = [nodeQuery]
        var mutations: [GraphQLFieldDefinition] = []
        var subscriptions: [GraphQLFieldDefinition] = []
        var classTypes: [String] = []
        // The classes the configuration leaves out are nowhere: a pointer to one reads as an `Object`.
        let classes = ParseClassDirectory(self.classes.classes.filter { config.includes($0.className) })
        for parseClass in classes.classes {
            let parts = ParseClassGraphQLTypes(parseClass: parseClass, classes: classes, config: config.classConfigs[parseClass.className])
            let mutationParts = parts.mutations
            let live = ParseSubscriptionsGraphQL(parseClass: parseClass)
            let newTypes = parts.types + mutationParts.types + [live.payloadType]
            guard newTypes.allSatisfy({ !taken.contains($0.name) }) else { continue }
            taken.formUnion(newTypes.map(\.name))
            types += newTypes
            classTypes.append(parseClass.graphQLName)
            for query in parts.queries where !Self.reservedQueries.contains(query.name) && !queries.contains(where: { $0.name == query.name }) {
                queries.append(query)
            }
            for mutation in mutationParts.fields where !Self.reservedMutations.contains(mutation.name) && !mutations.contains(where: { $0.name == mutation.name }) {
                mutations.append(mutation)
            }
            if !subscriptions.contains(where: { $0.name == live.field.name }) { subscriptions.append(live.field) }
        }
        types.append(.union("ArrayResult", description: "Use Inline Fragment on Array to get results: https://graphql.org/learn/queries/#inline-fragments",
                            members: ["Element"] + classTypes, resolveType: { value, schema in
            if (value as? GraphQLData)?["__type"] == .string("Object"), let name = T.classTypeName(value, schema), schema[name] != nil {
                return name
            }
            return "Element"
        }))
        queries.append(GraphQLFieldDefinition("health", T.nonNull("Boolean"), description: "The health query can be used to check if the server is up and running.",
                                              resolve: { _, _, _ in GraphQLData.boolean(true) }))
        let users = classes["_User"].map { ParseUsersGraphQL(users: $0, classes: classes) }
        if let users {
            types.append(users.viewerType)
            queries.append(users.viewerQuery)
        }
        queries += ParseSchemaGraphQL.queries
        let files = ParseFilesGraphQL.createFile
        types += files.types
        mutations.append(files.field)
        if let users {
            let parts = users.mutations
            types += parts.types
            mutations += parts.fields
        }
        let names = functionNames.filter(ParseClassDirectory.isGraphQLName)
        if !names.isEmpty {
            let call = ParseFunctionsGraphQL(functionNames: names)
            types += call.types
            mutations.append(call.field)
        }
        let schemaMutations = ParseSchemaGraphQL.mutations
        types += schemaMutations.types
        mutations += schemaMutations.fields
        types.append(.object("Query", description: "Query is the top level type for queries.", fields: queries))
        types.append(.object("Mutation", description: "Mutation is the top level type for mutations.", fields: mutations))
        guard !subscriptions.isEmpty else { return GraphQLSchema(query: "Query", mutation: "Mutation", types: types) }
        types.append(ParseSubscriptionsGraphQL.eventEnum)
        types.append(.object("Subscription", description: "Subscription is the top level type for subscriptions: each class's LiveQuery events, over graphql-transport-ws.",
                             fields: subscriptions))
        return GraphQLSchema(query: "Query", mutation: "Mutation", subscription: "Subscription", types: types)
    }

    /// Relay's `node(id:)`: any object by its global id.
    private var nodeQuery: GraphQLFieldDefinition {
        GraphQLFieldDefinition("node", .named("Node"), description: "Fetches an object given its ID",
                               arguments: [GraphQLArgumentDefinition("id", T.nonNull("ID"), description: "The ID of an object")],
                               waits: true, resolve: { _, arguments, info in
            try await ParseGraphQLErrors.resolving(info) { context in
                guard let id = arguments["id"]?.stringValue, let global = RelayIdentifiers.decodeGlobalID(id),
                      context.classes[global.className] != nil else {
                    throw ParseError(.objectNotFound, "Object not found.")
                }
                let object = try await ParseObjectQueries(context: context).get(global.className, id: global.objectId,
                                                                                 selection: info.selectedFields)
                return object.setting("className", .string(global.className))
            }
        })
    }
}
