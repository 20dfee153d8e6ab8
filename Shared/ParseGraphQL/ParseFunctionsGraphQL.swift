import GraphQL
import ParseWire

/// `callCloudCode(input: {functionName, params})`, parse-server's `functionsMutations`: the functions Cloud Code
/// has as the `CloudCodeFunction` enum, each run as `POST /functions/<name>` runs it.
struct ParseFunctionsGraphQL {
    let functionNames: [String]

    private var parts: (types: [GraphQLNamedType], field: GraphQLFieldDefinition) {
        RelayMutation.make("callCloudCode", typeName: "CallCloudCode", description: "The callCloudCode mutation can be used to invoke a cloud code function.",
            inputFields: [GraphQLArgumentDefinition("functionName", ParseGraphQLDefaultTypes.nonNull("CloudCodeFunction"), description: "This is the function to be called."),
                          GraphQLArgumentDefinition("params", .named("Object"), description: "These are the params to be passed to the function.")],
            outputFields: [GraphQLFieldDefinition("result", .named("Any"), description: "This is the result value of the cloud code function execution.")]) { input, _, context in
            guard let name = input["functionName"]?.stringValue else { throw ParseError(.scriptFailed, "Invalid function.") }
            let params = input["params"].flatMap { $0.isNull ? nil : $0.json } ?? .object([:])
            let result = try await context.backend.runFunction(name, params: params)
            return [GraphQLObjectMember("result", GraphQLData(json: result))]
        }
    }

    var types: [GraphQLNamedType] {
        [.enumeration("CloudCodeFunction", description: "The CloudCodeFunction enum type contains a list of all available cloud code functions.",
                      values: functionNames.map { GraphQLEnumValueDefinition($0) })] + parts.types
    }

    var field: GraphQLFieldDefinition { parts.field }
}
