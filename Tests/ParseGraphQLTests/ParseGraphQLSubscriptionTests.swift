import GraphQL
@testable import ParseGraphQL
import ParseWire
import Testing

/// Subscriptions: each class's field on `Subscription`, what a subscription follows, and an event executed as the
/// operation.
@Suite struct ParseGraphQLSubscriptionTests {
    let endpoint = ParseGraphQLEndpoint()

    private func subscribe(_ query: String, variables: [String: GraphQLData] = [:],
                           limits: GraphQLLimits = .none) async -> Result<ParseGraphQLSubscription, ParseGraphQLEndpoint.Refusal> {
        await endpoint.subscribe(GraphQLRequest(query: query, variables: variables), limits: limits) {
            ParseGraphQLInputs(schemas: ParseGraphQLSchemaTests.schemas)
        }
    }

    @Test func eachClassHasASubscriptionFieldBesideItsFind() async throws {
        let response = await endpoint.execute(GraphQLRequest(query: """
            { __schema { subscriptionType { name fields { name args { name } type { ofType { name } } } } } }
            """), backend: RecordingBackend { _ in .null }) { ParseGraphQLInputs(schemas: ParseGraphQLSchemaTests.schemas) }
        let json = try #require(JSONValue.parse(response.jsonText))
        let fields = json["data"]?["__schema"]?["subscriptionType"]?["fields"]?.arrayValue ?? []
        #expect(json["data"]?["__schema"]?["subscriptionType"]?["name"] == .string("Subscription"))
        #expect(fields.compactMap { $0["name"]?.stringValue }.sorted() == ["cats", "users"])
        let cats = try #require(fields.first { $0["name"] == .string("cats") })
        #expect(cats["args"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["where", "events", "watch"])
        #expect(cats["type"]?["ofType"]?["name"] == .string("CatSubscriptionPayload"))
    }

    @Test func aSubscriptionFollowsItsClassWhereEventsAndWatch() async throws {
        let subscription = try await subscribe("""
            subscription Fat($least: Float) {
              cats(where: { votes: { greaterThan: $least }, name: { equalTo: "Tom" } }, events: [CREATE, UPDATE], watch: ["votes"]) {
                event node { name }
              }
            }
            """, variables: ["least": .int(10)]).get()
        #expect(subscription.className == "Cat")
        #expect(JSONValue.object(subscription.constraints) == JSONValue.parse(#"{"votes":{"$gt":10},"name":{"$eq":"Tom"}}"#))
        #expect(subscription.events == ["create", "update"])
        #expect(subscription.watch == ["votes"])
    }

    @Test func anEventIsExecutedAsTheOperationWithTheEventAsItsRoot() async throws {
        let subscription = try await subscribe("""
            subscription { cats { event node { id objectId name votes owner { objectId } } original { votes } kind: __typename } }
            """).get()
        let result = await subscription.result(event: "update", object: [
            "objectId": .string("c1"), "className": .string("Cat"), "name": .string("Tom"), "votes": .number(3),
            "owner": JSONValue.parse(#"{"__type":"Pointer","className":"_User","objectId":"u1"}"#)!,
        ], original: ["objectId": .string("c1"), "votes": .number(2)], backend: RecordingBackend { _ in .null })
        let id = RelayIdentifiers.globalID(className: "Cat", objectId: "c1")
        #expect(result.jsonText == #"{"data":{"cats":{"event":"UPDATE","node":{"id":"\#(id)","objectId":"c1","name":"Tom","votes":3,"owner":{"objectId":"u1"}},"original":{"votes":2},"kind":"CatSubscriptionPayload"}}}"#)
    }

    @Test func aRelationInAnEventIsReadAsTheSubscriber() async throws {
        let subscription = try await subscribe("subscription { cats { node { friends { count } } } }").get()
        let backend = RecordingBackend { _ in JSONValue.parse(#"{"results":[],"count":4}"#)! }
        let result = await subscription.result(event: "create", object: ["objectId": .string("c1")], original: nil, backend: backend)
        #expect(result.jsonText == #"{"data":{"cats":{"node":{"friends":{"count":4}}}}}"#)
        #expect(backend.recorded.first?.path == "classes/Cat")
    }

    @Test(arguments: [
        ("subscription { cats { event } users { event } }", "Anonymous Subscription must select only one top level field."),
        ("subscription S { __typename }", "Subscription \"S\" must not select an introspection top level field."),
        ("{ cats { count } }", "Only subscription operations are served over this connection."),
        ("subscription { dogs { event } }", "Cannot query field \"dogs\" on type \"Subscription\"."),
    ])
    func whatIsNotOneSubscriptionIsRefused(query: String, message: String) async {
        guard case .failure(let refusal) = await subscribe(query) else {
            Issue.record("accepted: \(query)")
            return
        }
        #expect(refusal.errors.map(\.message).contains(message))
    }

    @Test func aSubscriptionBeyondTheLimitsIsRefused() async {
        guard case .failure(let refusal) = await subscribe("subscription { cats { node { owner { username } } } }",
                                                           limits: GraphQLLimits(maximumDepth: 2)) else {
            Issue.record("accepted")
            return
        }
        #expect(refusal.errors.first?.extensions?["code"] == .int(102))
    }

    @Test func aSubscriptionOverHTTPIsRefused() async {
        let backend = RecordingBackend { _ in .null }
        let response = await endpoint.execute(GraphQLRequest(query: "subscription { cats { event } }"), backend: backend) {
            ParseGraphQLInputs(schemas: ParseGraphQLSchemaTests.schemas)
        }
        #expect(response.data == nil)
        #expect(response.errors.map(\.message) == ["Subscriptions are served over WebSocket, with the graphql-transport-ws protocol, at this path."])
        #expect(backend.recorded.isEmpty)
    }
}
