/// The root field a subscription operation selects, with its arguments: what its event stream is made from (the
/// specification's `CreateSourceEventStream`). Each event is then executed as the operation with the event as its
/// root value (`ExecuteSubscriptionEvent`), by `GraphQLExecutor.execute`.
public struct GraphQLSubscriptionField: Sendable {
    public var name: String
    public var arguments: [String: GraphQLData]
}

extension GraphQLExecutor {
    /// The subscription's root field in a document `validate` accepted; a `GraphQLError` when the operation is not a
    /// subscription, the variables do not fit, or directives leave no field.
    public func subscriptionField(_ document: GraphQLDocument, operationName: String?,
                                  variables: [String: GraphQLData]) throws(GraphQLError) -> GraphQLSubscriptionField {
        let operation = try Self.operation(in: document, named: operationName)
        guard operation.type == .subscription else {
            throw GraphQLError("Only subscription operations are served over this connection.", locations: [operation.location])
        }
        guard let rootName = schema.subscriptionType, let root = schema[rootName] else {
            throw GraphQLError("Schema is not configured to execute subscription operation.", locations: [operation.location])
        }
        let coerced = try coerceVariables(operation, variables)
        let run = Execution(schema: schema, fragments: Dictionary(document.fragments.map { ($0.name, $0) }) { first, _ in first },
                            variables: coerced, context: GraphQLData.null)
        var grouped = GroupedFields(), visited = Set<String>()
        run.collect(operation.selectionSet, of: root, into: &grouped, visited: &visited)
        guard let field = grouped.entries.first?.fields.first, let definition = schema.field(field.name, on: root) else {
            throw GraphQLError("The subscription selects no field.", locations: [operation.location])
        }
        return GraphQLSubscriptionField(name: field.name,
                                        arguments: try run.arguments(definition.arguments, given: field.arguments, at: field.location))
    }
}
