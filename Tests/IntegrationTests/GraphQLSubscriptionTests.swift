import Foundation
import Testing

extension IntegrationSuite {
    /// GraphQL subscriptions over graphql-transport-ws at the GraphQL path (the gateway hands the upgrade to live),
    /// driven by PyPI's `websockets` as a GraphQL client speaks the protocol: the same events, sessions and ACLs as
    /// LiveQuery, each executed as the operation.
    @Suite struct GraphQLSubscriptions {
        static let url = GraphQLAPI.url.replacingOccurrences(of: "http://", with: "ws://")

        /// A client past `connection_init`, acknowledged.
        static func connected(_ payload: [String: Any] = [:]) throws -> LiveQueryClient {
            let client = try LiveQueryClient(subprotocol: "graphql-transport-ws", url: url)
            #expect(client.subprotocol == "graphql-transport-ws")
            try client.send(["type": "connection_init", "payload": ["X-Parse-Application-Id": TestStack.applicationId].merging(payload) { $1 }])
            let ack = try client.receive()
            #expect(ack?["type"] as? String == "connection_ack", "connection_init answered \(String(describing: ack))")
            return client
        }

        static func subscribe(_ client: LiveQueryClient, id: String, _ query: String) throws {
            try client.send(["id": id, "type": "subscribe", "payload": ["query": query]])
        }

        /// The `data` of the next `next` message for `id`; nil when none came.
        static func next(_ client: LiveQueryClient, id: String, timeout: Double = 10) throws -> [String: Any]? {
            guard let message = try client.receive(timeout: timeout) else { return nil }
            #expect(message["type"] as? String == "next" && message["id"] as? String == id, "expected next, got \(message)")
            return (message["payload"] as? [String: Any])?["data"] as? [String: Any]
        }

        /// The subscription's first event: objects are created until one arrives, since graphql-transport-ws does not
        /// say when a subscription is in place.
        static func firstEvent(_ client: LiveQueryClient, id: String, creating fields: [String: Any],
                               in className: String) async throws -> [String: Any] {
            for _ in 0..<40 {
                _ = try await PostsHTTP.create(className, fields)
                if let data = try next(client, id: id, timeout: 0.5) { return data }
            }
            throw PostsTestError(description: "no event for subscription \(id)")
        }

        @Test func eventsOfTheObjectsAWhereMatchesArriveAsTheOperationsResults() async throws {
            let className = PostsHTTP.uniqueClass("GqlLive") + "Item"
            let field = GraphQLAPI.fieldName(className) + "s"
            let outside = try await PostsHTTP.create(className, ["name": "small", "score": 1])
            let client = try Self.connected()
            try client.send(["type": "ping"])
            #expect(try client.receive()?["type"] as? String == "pong")
            try Self.subscribe(client, id: "s1", """
                subscription { \(field)(where: {score: {greaterThan: 5}}) { event node { objectId name score } original { score } } }
                """)
            let created = try await Self.firstEvent(client, id: "s1", creating: ["name": "probe", "score": 10], in: className)
            #expect(GraphQLAPI.at(created, [field, "event"]) as? String == "CREATE")
            #expect(GraphQLAPI.at(created, [field, "node", "name"]) as? String == "probe")
            #expect(GraphQLAPI.at(created, [field, "original"]) is NSNull)
            let probe = try #require(GraphQLAPI.at(created, [field, "node", "objectId"]) as? String)

            _ = try await PostsHTTP.send("PUT", "/classes/\(className)/\(outside)", ["score": 7])
            let entered = try #require(try Self.next(client, id: "s1"))
            #expect(GraphQLAPI.at(entered, [field, "event"]) as? String == "ENTER")
            #expect(GraphQLAPI.at(entered, [field, "original", "score"]) as? Double == 1)
            _ = try await PostsHTTP.send("PUT", "/classes/\(className)/\(probe)", ["score": 11])
            let updated = try #require(try Self.next(client, id: "s1"))
            #expect(GraphQLAPI.at(updated, [field, "event"]) as? String == "UPDATE")
            #expect(GraphQLAPI.at(updated, [field, "node", "score"]) as? Double == 11)
            #expect(GraphQLAPI.at(updated, [field, "original", "score"]) as? Double == 10)
            _ = try await PostsHTTP.send("PUT", "/classes/\(className)/\(probe)", ["score": 2])
            let left = try #require(try Self.next(client, id: "s1"))
            #expect(GraphQLAPI.at(left, [field, "event"]) as? String == "LEAVE")
            _ = try await PostsHTTP.send("DELETE", "/classes/\(className)/\(outside)")
            let deleted = try #require(try Self.next(client, id: "s1"))
            #expect(GraphQLAPI.at(deleted, [field, "event"]) as? String == "DELETE")
            #expect(GraphQLAPI.at(deleted, [field, "node", "objectId"]) as? String == outside)
            _ = try await PostsHTTP.create(className, ["name": "too small", "score": 3])
            #expect(try client.expectNothing() == nil)

            try client.send(["id": "s1", "type": "complete"])
            _ = try await PostsHTTP.create(className, ["name": "after complete", "score": 9])
            #expect(try client.expectNothing() == nil)
        }

        @Test func eventsAndWatchChooseWhichChangesAreSent() async throws {
            let className = PostsHTTP.uniqueClass("GqlWatch") + "Item"
            let field = GraphQLAPI.fieldName(className) + "s"
            _ = try await PostsHTTP.create(className, ["name": "seed", "score": 1])
            let client = try Self.connected()
            try Self.subscribe(client, id: "w", "subscription { \(field)(events: [UPDATE], watch: [\"score\"]) { event node { name score } } }")
            let creates = try Self.connected()
            try Self.subscribe(creates, id: "c", "subscription { \(field)(events: [CREATE]) { event } }")
            _ = try await Self.firstEvent(creates, id: "c", creating: ["name": "probe", "score": 1], in: className)
            let id = try await PostsHTTP.create(className, ["name": "watched", "score": 1])
            #expect(try Self.next(creates, id: "c").flatMap { GraphQLAPI.at($0, [field, "event"]) as? String } == "CREATE")
            _ = try await PostsHTTP.send("PUT", "/classes/\(className)/\(id)", ["name": "renamed"])
            _ = try await PostsHTTP.send("PUT", "/classes/\(className)/\(id)", ["score": 2])
            let scored = try #require(try Self.next(client, id: "w"))
            #expect(GraphQLAPI.at(scored, [field, "node", "name"]) as? String == "renamed")
            #expect(GraphQLAPI.at(scored, [field, "node", "score"]) as? Double == 2)
            #expect(try creates.expectNothing() == nil, "the subscription to creates got an update")
        }

        @Test func aSessionSeesWhatItsACLsLetItAsLiveQueryDoes() async throws {
            let className = PostsHTTP.uniqueClass("GqlPrivate") + "Item"
            let field = GraphQLAPI.fieldName(className) + "s"
            let owner = try await AuthAPI.signUp("gqlsub")
            _ = try await PostsHTTP.create(className, ["name": "seed"])
            let mine = try Self.connected(["X-Parse-Session-Token": owner.token])
            let anyone = try Self.connected()
            try Self.subscribe(mine, id: "m", "subscription { \(field) { node { name } } }")
            try Self.subscribe(anyone, id: "a", "subscription { \(field) { node { name } } }")
            _ = try await Self.firstEvent(mine, id: "m", creating: ["name": "public"], in: className)
            _ = try await Self.firstEvent(anyone, id: "a", creating: ["name": "public"], in: className)
            while try mine.expectNothing(for: 0.3) != nil || anyone.expectNothing(for: 0.3) != nil {}
            _ = try await PostsHTTP.create(className, ["name": "private", "ACL": [owner.id: ["read": true, "write": true]]])
            let seen = try #require(try Self.next(mine, id: "m"))
            #expect(GraphQLAPI.at(seen, [field, "node", "name"]) as? String == "private")
            #expect(try anyone.expectNothing() == nil, "a client without the session saw a private object")
        }

        @Test func theProtocolsRulesAreKept() async throws {
            func closeCode(_ client: LiveQueryClient) throws -> Int? { try client.command("recv 5")["closed"] as? Int }
            let early = try LiveQueryClient(subprotocol: "graphql-transport-ws", url: Self.url)
            try Self.subscribe(early, id: "1", "subscription { __typename }")
            #expect(try closeCode(early) == 4401)
            let wrongApp = try LiveQueryClient(subprotocol: "graphql-transport-ws", url: Self.url)
            try wrongApp.send(["type": "connection_init", "payload": ["applicationId": "not-this-app"]])
            #expect(try closeCode(wrongApp) == 4403)
            let twice = try Self.connected()
            try twice.send(["type": "connection_init"])
            #expect(try closeCode(twice) == 4429)
            let unknown = try Self.connected()
            try unknown.send(["type": "nonsense"])
            #expect(try closeCode(unknown) == 4400)

            let client = try Self.connected()
            try Self.subscribe(client, id: "bad", "subscription { nothingHere { event } }")
            let refused = try #require(try client.receive())
            #expect(refused["type"] as? String == "error" && refused["id"] as? String == "bad")
            #expect(((refused["payload"] as? [[String: Any]])?.first?["message"] as? String)?.contains("nothingHere") == true)
            try Self.subscribe(client, id: "query", "{ health }")
            let query = try #require(try client.receive())
            #expect(query["type"] as? String == "error" && query["id"] as? String == "query")
            try client.send(["type": "ping"])
            #expect(try client.receive()?["type"] as? String == "pong", "the connection outlived refused operations")
        }
    }
}
