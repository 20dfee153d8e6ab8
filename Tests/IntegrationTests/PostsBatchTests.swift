import Foundation
import Testing

extension IntegrationSuite {
    @Suite struct PostsBatch {
        static func error(_ item: [String: Any]) -> String? {
            guard let error = item["error"] as? [String: Any] else { return nil }
            return "\(error["code"] as? Int ?? 0) \(error["error"] as? String ?? "")"
        }

        @Test func answersEachSubRequestInOrder() async throws {
            let cls = PostsHTTP.uniqueClass("Batched")
            let existing = try await PostsHTTP.create(cls, ["n": 0])
            let reply = try await PostsHTTP.send("POST", "/batch", ["requests": [
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 1]],
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 2]],
                ["method": "PUT", "path": "/parse/classes/\(cls)/missingId1", "body": ["n": 3]],
                ["method": "PUT", "path": "/parse/classes/\(cls)/\(existing)", "body": ["n": ["__op": "Increment", "amount": 5]]],
                ["method": "GET", "path": "/parse/classes/\(cls)", "body": ["where": ["n": ["$gte": 1]], "order": "n"]],
                ["method": "DELETE", "path": "/parse/classes/\(cls)/\(existing)"],
                ["method": "POST", "path": "/elsewhere/classes/\(cls)", "body": [:]],
            ]])
            #expect(reply.status == 200)
            let items = try #require((try? JSONSerialization.jsonObject(with: reply.body)) as? [[String: Any]])
            #expect(items.count == 7)
            let first = try #require(items[0]["success"] as? [String: Any])
            #expect(Set(first.keys) == ["objectId", "createdAt"])
            #expect(items[1]["success"] != nil)
            #expect(Self.error(items[2]) == "101 Object not found.")
            #expect((items[3]["success"] as? [String: Any])?["n"] as? Int == 5)
            let found = ((items[4]["success"] as? [String: Any])?["results"] as? [[String: Any]]) ?? []
            #expect(found.compactMap { $0["n"] as? Int } == [1, 2, 5])
            #expect((items[5]["success"] as? [String: Any])?.isEmpty == true)
            #expect(Self.error(items[6]) == "107 cannot route batch path /elsewhere/classes/\(cls)")
        }

        @Test func aTransactionCommitsAllOrNothing() async throws {
            let cls = PostsHTTP.uniqueClass("Atomic")
            let failing = try await PostsHTTP.send("POST", "/batch", ["transaction": true, "requests": [
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 1]],
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": "not a number"]],
            ]])
            // parse-server's answer to a failed transaction: its generic 500, with `message`.
            #expect(failing.status == 500)
            #expect(failing.text == #"{"code":1,"message":"Internal server error."}"#)
            #expect(PostsHTTP.results(try await PostsHTTP.find(cls, [:])).isEmpty)

            let passing = try await PostsHTTP.send("POST", "/batch", ["transaction": true, "requests": [
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 1]],
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 2]],
            ]])
            #expect(passing.status == 200)
            #expect(PostsHTTP.results(try await PostsHTTP.find(cls, [:])).count == 2)
        }

        @Test func requestsMustBeAnArray() async throws {
            let reply = try await PostsHTTP.send("POST", "/batch", ["requests": "nope"])
            #expect(reply.text == #"{"code":107,"error":"requests must be an array"}"#)
        }
    }
}
