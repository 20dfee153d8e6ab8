import GraphQL

/// Relay's `mutationWithClientMutationId`, as graphql-relay makes every parse-server mutation: `<Name>Input` with
/// `clientMutationId`, `<Name>Payload` echoing it, and the field taking `input: <Name>Input!`; the body runs as a
/// resolver (`ParseGraphQLErrors.resolving`) and answers the payload's other fields.
enum RelayMutation {
    private typealias T = ParseGraphQLDefaultTypes

    static func make(_ fieldName: String, typeName: String, description: String,
                     inputFields: [GraphQLArgumentDefinition], outputFields: [GraphQLFieldDefinition],
                     run: @escaping @Sendable (GraphQLData, GraphQLResolveInfo, ParseGraphQLContext) async throws -> [GraphQLObjectMember])
        -> (types: [GraphQLNamedType], field: GraphQLFieldDefinition) {
        let input = GraphQLNamedType.inputObject("\(typeName)Input", fields: inputFields + [GraphQLArgumentDefinition("clientMutationId", .named("String"))])
        let payload = GraphQLNamedType.object("\(typeName)Payload", fields: outputFields + [GraphQLFieldDefinition("clientMutationId", .named("String"))])
        let field = GraphQLFieldDefinition(fieldName, .named("\(typeName)Payload"), description: description,
                                           arguments: [GraphQLArgumentDefinition("input", T.nonNull("\(typeName)Input"))],
                                           resolve: { _, arguments, info in
            try await ParseGraphQLErrors.resolving(info) { context in
                let input = arguments["input"] ?? .object([])
                var members = try await run(input, info, context)
                members.append(GraphQLObjectMember("clientMutationId", input["clientMutationId"] ?? .null))
                return GraphQLData.object(members)
            }
        })
        return ([input, payload], field)
    }
}
