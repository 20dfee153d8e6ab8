import Foundation
import Testing

extension IntegrationSuite {
    /// `/batch` reaching every service's routes, in order, as the caller.
    @Suite struct BatchRouting {
        private static func items(_ reply: Reply) throws -> [[String: Any]] {
            try #require((try? JSONSerialization.jsonObject(with: reply.body)) as? [[String: Any]], "\(reply.status) \(reply.text)")
        }

        private static func batch(_ requests: [[String: Any]], transaction: Bool? = nil, token: String? = nil,
                                  master: Bool = false) async throws -> Reply {
            var body: [String: Any] = ["requests": requests]
            if let transaction { body["transaction"] = transaction }
            return try await AuthAPI.send("POST", "/batch", body, token: token, master: master)
        }

        @Test func anEmptyArrayBodyCreatesAnEmptyObject() async throws {
            // PHP's SDK encodes an object without fields as `[]`.
            let cls = PostsHTTP.uniqueClass("EmptyBody")
            let reply = try await PostsHTTP.send("POST", "/batch",
                                                 #"{"requests":[{"method":"POST","path":"/parse/classes/\#(cls)","body":[]}]}"#)
            let items = try Self.items(reply)
            let id = try #require((items.first?["success"] as? [String: Any])?["objectId"] as? String, "\(reply.text)")
            #expect(try await PostsHTTP.send("GET", "/classes/\(cls)/\(id)").status == 200)
        }

        @Test func rolesUsersAndObjectsRunInOrderAsTheCaller() async throws {
            let user = try await AuthAPI.signUp("batcher")
            let cls = PostsHTTP.uniqueClass("Mixed")
            let roleName = "Batch_\(UUID().uuidString.prefix(8))"
            let reply = try await Self.batch([
                ["method": "POST", "path": "/parse/classes/_Role",
                 "body": ["name": roleName, "ACL": ["*": ["read": true], user.id: ["write": true]]]],
                ["method": "PUT", "path": "/parse/users/\(user.id)", "body": ["nickname": "batched"]],
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 1]],
                ["method": "GET", "path": "/parse/classes/_Role", "body": ["where": ["name": roleName]]],
                ["method": "GET", "path": "/parse/users/me"],
                ["method": "PUT", "path": "/parse/classes/_User/someoneElse", "body": ["nickname": "x"]],
                ["method": "POST", "path": "/parse/files/x.txt", "body": [:]],
            ], token: user.token)
            #expect(reply.status == 200)
            let items = try Self.items(reply)
            #expect(items.count == 7)
            // Roles need no master key to be created; the caller's ACL was kept.
            #expect((items[0]["success"] as? [String: Any])?["objectId"] is String, "\(items[0])")
            #expect((items[1]["success"] as? [String: Any])?["updatedAt"] is String, "\(items[1])")
            #expect((items[2]["success"] as? [String: Any])?["objectId"] is String, "\(items[2])")
            let roles = ((items[3]["success"] as? [String: Any])?["results"] as? [[String: Any]]) ?? []
            #expect(roles.map { $0["name"] as? String } == [roleName], "the role created before it in the batch: \(items[3])")
            // The caller's identity travels with each sub-request.
            #expect((items[4]["success"] as? [String: Any])?["nickname"] as? String == "batched", "\(items[4])")
            #expect(PostsBatch.error(items[5])?.hasPrefix("101 ") == true || PostsBatch.error(items[5])?.hasPrefix("206 ") == true,
                    "another user's row is not the caller's to change: \(items[5])")
            #expect(PostsBatch.error(items[6]) == "107 cannot route batch path /parse/files/x.txt")

            let stored = try await AuthAPI.send("GET", "/users/\(user.id)", master: true)
            #expect(stored.json?["nickname"] as? String == "batched")
        }

        @Test func aVoteInABatchIsCountedByTheVotesService() async throws {
            let cls = PostsHTTP.uniqueClass("BatchVote")
            let id = try await PostsHTTP.create(cls, ["votes": 0])
            let reply = try await Self.batch([
                ["method": "PUT", "path": "/parse/classes/\(cls)/\(id)", "body": ["votes": ["__op": "Increment", "amount": 1]]],
                ["method": "POST", "path": "/parse/classes/_Role", "body": ["name": "V\(UUID().uuidString.prefix(8))"]],
            ], master: true)
            let items = try Self.items(reply)
            #expect((items.first?["success"] as? [String: Any])?["votes"] as? Int == 1, "\(reply.text)")
            // The vote's ballot is in the ledger, with its event: the batch kept the vote path.
            let ledger = try await VotesAPI.ledger(cls, id)
            #expect(ledger.applied == 1 && ledger.sum == 1 && ledger.eventIds == 1)
        }

        @Test func aTransactionAcrossServicesIsRefusedBeforeAnythingRuns() async throws {
            let cls = PostsHTTP.uniqueClass("NoTxn")
            let roleName = "Txn_\(UUID().uuidString.prefix(8))"
            let reply = try await Self.batch([
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 1]],
                ["method": "POST", "path": "/parse/roles", "body": ["name": roleName]],
            ], transaction: true, master: true)
            #expect(reply.status == 400)
            #expect(reply.text == #"{"code":107,"error":"A transaction cannot span services: this batch's requests go to auth and posts."}"#)
            #expect(PostsHTTP.results(try await PostsHTTP.find(cls, [:], master: true)).isEmpty)
            let roles = try await AuthAPI.send("GET", "/roles?where=" + #"{"name":"\#(roleName)"}"#
                .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!, master: true)
            #expect((roles.json?["results"] as? [Any])?.isEmpty == true, "\(roles.text)")
        }

        @Test func aTransactionOfPostsRoutesStillCommitsTogether() async throws {
            let cls = PostsHTTP.uniqueClass("Txn")
            let reply = try await Self.batch([
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 1]],
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": "text"]],
            ], transaction: true)
            #expect(reply.status == 500)
            #expect(PostsHTTP.results(try await PostsHTTP.find(cls, [:])).isEmpty)
        }

        @Test func aNestedBatchIsRefused() async throws {
            let reply = try await Self.batch([["method": "POST", "path": "/parse/batch", "body": ["requests": []]]])
            #expect(reply.status == 400)
            #expect(reply.text == #"{"code":107,"error":"nested batch requests are not allowed"}"#)
        }
    }
}
