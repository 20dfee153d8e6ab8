import Contracts
import Foundation
import Messaging
import ParseWire
import ScratchDatabase
import Testing

/// The main flows across the services, in one process (`InProcessStack`): what the full stack's integration tests
/// check over HTTP and RabbitMQ, here in a second, so a change that breaks the way between two services shows up
/// before the stack starts.
@Suite(.enabled(if: ScratchDatabase.isConfigured, "needs the test stack's PostgreSQL (PARSE_TEST_DATABASE_URL)"))
struct MainFlowsTests {
    @Test func signUpCreateQueryVoteWithItsEventAndUpload() async throws {
        try await InProcessStack.run { stack in
            // Sign-up (auth), then a create as that user (posts, which asks auth who the token is).
            let signUp = await stack.send("POST", "users", json: #"{"username":"ada","password":"pw-1234"}"#)
            #expect(signUp.status == 201)
            let token = try #require(signUp.body["sessionToken"]?.stringValue)
            let userId = try #require(signUp.body["objectId"]?.stringValue)

            let created = await stack.send("POST", "classes/Cat", json: #"{"name":"Tom","votes":0}"#, sessionToken: token)
            #expect(created.status == 201)
            let catId = try #require(created.body["objectId"]?.stringValue)

            // A query that crosses the boundary: the cat's owner is a _User pointer, included from auth.
            let owned = await stack.send("PUT", "classes/Cat/\(catId)",
                                         json: #"{"owner":{"__type":"Pointer","className":"_User","objectId":"\#(userId)"}}"#,
                                         sessionToken: token)
            #expect(owned.status == 200)
            let found = await stack.send("GET", "classes/Cat", query: ["where": #"{"name":"Tom"}"#, "include": "owner"],
                                         sessionToken: token)
            #expect(found.status == 200)
            let results = found.body["results"]?.arrayValue ?? []
            #expect(results.count == 1)
            #expect(results.first?["owner"]?["username"]?.stringValue == "ada")

            // A vote (gateway -> votes -> posts) and its event, out of the votes outbox.
            let voted = await stack.send("PUT", "classes/Cat/\(catId)", json: #"{"votes":{"__op":"Increment","amount":1}}"#,
                                         sessionToken: token)
            #expect(voted.status == 200)
            #expect(voted.body["votes"]?.numberValue == 1)
            let events = try await stack.events(from: .votes, routingKey: "vote.cast.Cat")
            #expect(events.count == 1)
            let event = try #require(events.first)
            let cast = try JSONDecoder().decode(CloudEvent<VoteCast>.self, from: Data(event.body))
            #expect(cast.data.objectId == catId)
            #expect(cast.data.total == 1)
            #expect(cast.data.voter == userId)

            // An upload by the user (gateway -> files in parts) and its download, which needs no keys.
            let uploaded = await stack.send("POST", "files/hello.txt", sessionToken: token, contentType: "text/plain",
                                            bytes: Array("hello, cat".utf8))
            #expect(uploaded.status == 201, "\(uploaded.body)")
            let url = try #require(uploaded.body["url"]?.stringValue)
            let name = try #require(uploaded.body["name"]?.stringValue)
            #expect(url.hasSuffix(name))
            let download = await stack.download("files/\(InProcessStack.applicationId)/\(name)")
            #expect(download.status == 200)
            #expect(download.text == "hello, cat")
        }
    }
}
