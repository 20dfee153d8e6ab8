import GraphQL
import ParseWire

/// Beyond parse-server, which has no GraphQL subscriptions: each class's LiveQuery events as a subscription field,
/// served over `graphql-transport-ws` by the `live` service. `cats(where:, events:, watch:)` has the events of the
/// objects its `where` matches, as LiveQuery decides them (`create`, `enter`, `update`, `leave`, `delete`), each
/// with the object after the change (`node`) and, for updates, before it (`original`).
struct ParseSubscriptionsGraphQL {
    let parseClass: ParseClassDefinition

    private typealias T = ParseGraphQLDefaultTypes

    static let eventEnum = GraphQLNamedType.enumeration("LiveQueryEvent", description: "The LiveQueryEvent enum type names what happened to an object, as a LiveQuery subscription sees it.", values: [
        GraphQLEnumValueDefinition("CREATE", description: "An object that matches was created."),
        GraphQLEnumValueDefinition("ENTER", description: "An object was changed and matches now, but did not before."),
        GraphQLEnumValueDefinition("UPDATE", description: "An object that matched before and after was changed."),
        GraphQLEnumValueDefinition("LEAVE", description: "An object was changed and does not match any more."),
        GraphQLEnumValueDefinition("DELETE", description: "An object that matched was deleted."),
    ])

    /// The subscription field's name: the class's find query's (`cats`).
    static func fieldName(of parseClass: ParseClassDefinition) -> String { Pluralization.plural(parseClass.graphQLFieldName) }

    private var name: String { parseClass.graphQLName }

    var payloadType: GraphQLNamedType {
        .object("\(name)SubscriptionPayload", description: "The \(name)SubscriptionPayload object type is what a subscription to the \(name) class receives for each event.", fields: [
            GraphQLFieldDefinition("event", T.nonNull("LiveQueryEvent"), description: "What happened to the object."),
            GraphQLFieldDefinition("node", T.nonNull(name), description: "The object after the event (before it, for a deletion)."),
            GraphQLFieldDefinition("original", .named(name), description: "The object before an update, enter or leave."),
        ])
    }

    /// The root field: its resolver hands the event over as it is (the root value of each event's execution).
    var field: GraphQLFieldDefinition {
        GraphQLFieldDefinition(Self.fieldName(of: parseClass), T.nonNull("\(name)SubscriptionPayload"),
            description: "The \(Self.fieldName(of: parseClass)) subscription receives the events of the \(name) objects that match its conditions.",
            arguments: [
                GraphQLArgumentDefinition("where", .named("\(name)WhereInput"), description: "These are the conditions the objects must match (before or after the event) to be notified about."),
                GraphQLArgumentDefinition("events", T.listOf("LiveQueryEvent"), description: "The events to receive; all when left out."),
                GraphQLArgumentDefinition("watch", T.listOf("String"), description: "Receive creates and updates only when one of these fields changed."),
            ],
            resolve: { source, _, _ in source })
    }
}

/// A subscription accepted on the schema of the moment: which class and objects it follows, and how each of its
/// events becomes the operation's result.
public struct ParseGraphQLSubscription: Sendable {
    public let className: String
    /// The `where` argument as a Parse query's `where`.
    public let constraints: [String: JSONValue]
    /// LiveQuery's event names (`create`, `enter`, `update`, `leave`, `delete`) asked for; nil for all.
    public let events: Set<String>?
    public let watch: [String]?
    let document: GraphQLDocument
    let operationName: String?
    let variables: [String: GraphQLData]
    let executor: GraphQLExecutor
    let classes: ParseClassDirectory

    /// The operation's result for one event: `event` a LiveQuery event name, `object` and `original` as the
    /// subscriber may see them. Fields that read further (relations) read through `backend`, as the subscriber.
    public func result(event: String, object: [String: JSONValue], original: [String: JSONValue]?,
                       backend: any ParseGraphQLBackend) async -> GraphQLResponse {
        var members = [GraphQLObjectMember("event", .string(event.uppercased())), GraphQLObjectMember("node", GraphQLData(json: .object(object)))]
        if let original { members.append(GraphQLObjectMember("original", GraphQLData(json: .object(original)))) }
        return await executor.execute(document, operationName: operationName, variables: variables, root: GraphQLData.object(members),
                                      context: ParseGraphQLContext(backend: backend, classes: classes), validated: true)
    }
}
