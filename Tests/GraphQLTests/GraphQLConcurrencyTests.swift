import GraphQL
import Synchronization
import Testing

/// Fields that wait run together in a query, at most `listWidth` objects of a list at a time, in the order asked;
/// never in a mutation.
@Suite struct GraphQLConcurrencyTests {
    final class InFlight: Sendable {
        private let state = Mutex((now: 0, most: 0))
        func enter() { state.withLock { $0.now += 1; $0.most = max($0.most, $0.now) } }
        func leave() { state.withLock { $0.now -= 1 } }
        var most: Int { state.withLock { $0.most } }
    }

    static func schema(_ inFlight: InFlight, waits: Bool) -> GraphQLSchema {
        let slow: GraphQLResolver = { source, _, _ in
            inFlight.enter()
            defer { inFlight.leave() }
            try await Task.sleep(for: .milliseconds(20))
            guard let number = (source as? GraphQLData)?["n"], number != .int(13) else { throw GraphQLError("unlucky") }
            return number
        }
        let item = GraphQLNamedType.object("Item", fields: [
            GraphQLFieldDefinition("n", .named("Int")),
            GraphQLFieldDefinition("slow", .named("Int"), waits: waits, resolve: slow),
            GraphQLFieldDefinition("strict", .nonNull(.named("Int")), waits: waits, resolve: slow),
        ])
        let items: GraphQLResolver = { _, arguments, _ in
            guard case .int(let count)? = arguments["count"] else { return GraphQLData.list([]) }
            return GraphQLData.list((1...count).map { .object([GraphQLObjectMember("n", .int($0))]) })
        }
        let query = GraphQLNamedType.object("Query", fields: [
            GraphQLFieldDefinition("items", .list(.named("Item")), arguments: [GraphQLArgumentDefinition("count", .named("Int"))], resolve: items),
        ])
        let mutation = GraphQLNamedType.object("Mutation", fields: [
            GraphQLFieldDefinition("items", .list(.named("Item")), arguments: [GraphQLArgumentDefinition("count", .named("Int"))], resolve: items),
        ])
        return GraphQLSchema(query: "Query", mutation: "Mutation", types: [query, mutation, item])
    }

    @Test func aListWhoseSelectionWaitsIsCompletedSeveralAtATimeInOrder() async {
        let inFlight = InFlight()
        let response = await GraphQLExecutor(schema: Self.schema(inFlight, waits: true)).execute(GraphQLRequest(query: "{ items(count: 12) { slow } }"))
        let expected = (1...12).map { #"{"slow":\#($0)}"# }.joined(separator: ",")
        #expect(response.jsonText == #"{"data":{"items":[\#(expected)]}}"#)
        #expect(inFlight.most > 1 && inFlight.most <= 8)
    }

    @Test func fieldsThatDoNotWaitAndMutationsRunOneAfterTheOther() async {
        let quick = InFlight()
        _ = await GraphQLExecutor(schema: Self.schema(quick, waits: false)).execute(GraphQLRequest(query: "{ items(count: 5) { slow } }"))
        #expect(quick.most == 1)
        let mutation = InFlight()
        _ = await GraphQLExecutor(schema: Self.schema(mutation, waits: true)).execute(GraphQLRequest(query: "mutation { items(count: 5) { slow } }"))
        #expect(mutation.most == 1)
    }

    @Test func anErrorTogetherNullsWhatItShould() async {
        let response = await GraphQLExecutor(schema: Self.schema(InFlight(), waits: true))
            .execute(GraphQLRequest(query: "{ items(count: 14) { n strict } }"))
        // Item 13's non-null field fails: that item is null, the others are whole.
        #expect(response.errors.map(\.message) == ["unlucky"])
        #expect(response.errors.first?.path == [.key("items"), .index(12), .key("strict")])
        guard case .list(let items)? = response.data?["items"] else { Issue.record("no items"); return }
        #expect(items.count == 14 && items[12] == .null && items[13]["strict"] == .int(14))
    }
}
