import Foundation
import Testing

extension IntegrationSuite {
    /// A batch the client names with `X-Parse-Request-Id` can always be finished: a try cut short by the request's
    /// deadline leaves each write it made answered once, and its retry does only what was not done and answers every
    /// item as the first try that ran it did. Batches have an item limit, and every refused item has a code.
    @Suite struct BatchRetry {
        static func items(_ reply: Reply) -> [[String: Any]] {
            ((try? JSONSerialization.jsonObject(with: reply.body)) as? [[String: Any]]) ?? []
        }

        @Test func aNamedBatchIsFinishedByItsRetriesAndEachWriteIsAppliedOnce() async throws {
            let cls = PostsHTTP.uniqueClass("Resumed")
            let count = 3_000
            let requests = (0..<count).map { ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": $0]] }
            let requestId = "batch-\(UUID().uuidString)"
            var final: Reply?
            var tries = 0
            // On this stack's 3 s request timeout a try may end in 504 with part of the batch done; each retry with the
            // same id goes further.
            while final == nil && tries < 20 {
                tries += 1
                let reply = try await PostsHTTP.send("POST", "/batch", ["requests": requests], master: true,
                                                     headers: ["X-Parse-Request-Id": requestId])
                if reply.status == 200 { final = reply } else { #expect(reply.status == 504, "\(reply.status) \(reply.text)") }
            }
            let answer = try #require(final, "not finished after \(tries) tries")
            let ids = Self.items(answer).compactMap { ($0["success"] as? [String: Any])?["objectId"] as? String }
            #expect(ids.count == count)
            #expect(Set(ids).count == count)

            let counted = try await PostsHTTP.find(cls, ["count": 1, "limit": 0], master: true)
            #expect(counted.json?["count"] as? Int == count, "stored once each after \(tries) tries: \(counted.text)")
            let again = try await PostsHTTP.send("POST", "/batch", ["requests": requests], master: true,
                                                 headers: ["X-Parse-Request-Id": requestId])
            #expect(again.status == 200)
            #expect(Self.items(again).compactMap { ($0["success"] as? [String: Any])?["objectId"] as? String } == ids)
            #expect(try await PostsHTTP.find(cls, ["count": 1, "limit": 0], master: true).json?["count"] as? Int == count)
        }

        @Test func aBatchOverTheItemLimitIsRefusedBeforeAnythingRuns() async throws {
            let cls = PostsHTTP.uniqueClass("Limited")
            let requests = (0...10_000).map { ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": $0]] }
            let refused = try await PostsHTTP.send("POST", "/batch", ["requests": requests])
            #expect(refused.status == 400)
            #expect(refused.json?["code"] as? Int == 107)
            #expect(refused.json?["error"] as? String
                    == "Batch request contains 10001 sub-requests, which exceeds the limit of 10000.")
            let counted = try await PostsHTTP.find(cls, ["count": 1, "limit": 0], master: true)
            #expect(counted.json?["count"] as? Int ?? 0 == 0)
        }

        @Test func anItemRefusedForWantOfTheMasterKeyHasACode() async throws {
            let cls = PostsHTTP.uniqueClass("Coded")
            // Posts' routes only: posts runs the batch; with a cloud route the gateway splits it.
            for extra in [["method": "GET", "path": "/parse/schemas"], ["method": "GET", "path": "/parse/hooks/functions"]] {
                let reply = try await PostsHTTP.send("POST", "/batch", ["requests": [
                    ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 1]], extra,
                ]])
                #expect(reply.status == 200)
                let items = Self.items(reply)
                #expect(items.count == 2)
                #expect(items.first?["success"] != nil)
                let error = items.last?["error"] as? [String: Any]
                #expect(error?["code"] as? Int == 119, "\(extra): \(reply.text)")
                #expect(error?["error"] as? String == "unauthorized: master key is required", "\(extra): \(reply.text)")
            }
        }
    }
}
