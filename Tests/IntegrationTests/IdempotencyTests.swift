import Foundation
import Testing

extension IntegrationSuite {
    /// Writes named by `X-Parse-Request-Id` are applied once per id; a retry gets the first answer (on by default,
    /// `PARSE_SERVER_IDEMPOTENCY_*`).
    @Suite struct Idempotency {
        static func send(_ method: String, _ path: String, _ body: Any? = nil, requestId: String?,
                         master: Bool = false) async throws -> Reply {
            var headers = HTTP.appHeaders
            headers["Content-Type"] = "application/json"
            if master { headers["X-Parse-Master-Key"] = TestStack.masterKey }
            if let requestId { headers["X-Parse-Request-Id"] = requestId }
            let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
            return try await HTTP.send(method, path, headers: headers, body: data)
        }

        static func count(_ className: String) async throws -> Int {
            let reply = try await PostsHTTP.send("GET", "/classes/\(className)", master: true,
                                                 query: ["count": "1", "limit": "0"])
            return try #require(reply.json?["count"] as? Int)
        }

        static func newId() -> String { UUID().uuidString }

        @Test func aRetriedCreateIsAppliedOnceAndAnsweredAsTheFirstTime() async throws {
            let cls = PostsHTTP.uniqueClass("Once")
            let id = Self.newId()
            let first = try await Self.send("POST", "/classes/\(cls)", ["n": 1], requestId: id)
            let retry = try await Self.send("POST", "/classes/\(cls)", ["n": 1], requestId: id)
            #expect(first.status == 201)
            #expect(retry.status == 201)
            #expect(retry.text == first.text)
            #expect(retry.header("Location") == first.header("Location"))
            #expect(try await Self.count(cls) == 1)
            // Another id is another write.
            let other = try await Self.send("POST", "/classes/\(cls)", ["n": 1], requestId: Self.newId())
            #expect(other.status == 201)
            #expect(try await Self.count(cls) == 2)
        }

        @Test func aRetriedUpdateIncrementsOnce() async throws {
            let cls = PostsHTTP.uniqueClass("OnceUpdate")
            let object = try await PostsHTTP.create(cls, ["n": 0])
            let id = Self.newId()
            let change: [String: Any] = ["n": ["__op": "Increment", "amount": 1]]
            let first = try await Self.send("PUT", "/classes/\(cls)/\(object)", change, requestId: id)
            let retry = try await Self.send("PUT", "/classes/\(cls)/\(object)", change, requestId: id)
            #expect(first.status == 200)
            #expect(first.json?["n"] as? Int == 1)
            #expect(retry.text == first.text)
            let read = try await PostsHTTP.send("GET", "/classes/\(cls)/\(object)")
            #expect(read.json?["n"] as? Int == 1)
        }

        @Test func aRetriedDeleteGetsTheFirstAnswerNotObjectNotFound() async throws {
            let cls = PostsHTTP.uniqueClass("OnceDelete")
            let object = try await PostsHTTP.create(cls, ["n": 0])
            let id = Self.newId()
            let first = try await Self.send("DELETE", "/classes/\(cls)/\(object)", requestId: id)
            let retry = try await Self.send("DELETE", "/classes/\(cls)/\(object)", requestId: id)
            #expect(first.status == 200)
            #expect(retry.status == 200)
            #expect(retry.text == first.text)
            // Without the id, the same delete is a new one, and the object is gone.
            let fresh = try await Self.send("DELETE", "/classes/\(cls)/\(object)", requestId: nil)
            #expect(fresh.status == 404)
            #expect(fresh.code == 101)
        }

        @Test func aRetriedSignupCreatesOneUserAndGivesTheSameSession() async throws {
            let name = AuthAPI.uniqueName("once")
            let id = Self.newId()
            let body: [String: Any] = ["username": name, "password": "secret-1"]
            let first = try await Self.send("POST", "/users", body, requestId: id)
            let retry = try await Self.send("POST", "/users", body, requestId: id)
            #expect(first.status == 201)
            #expect(retry.status == 201)
            #expect(retry.json?["objectId"] as? String == first.json?["objectId"] as? String)
            #expect(retry.json?["sessionToken"] as? String == first.json?["sessionToken"] as? String)
            // The same signup under a new id is a second attempt, which the taken name refuses.
            let again = try await Self.send("POST", "/users", body, requestId: Self.newId())
            #expect(again.code == 202)
        }

        @Test func aRetriedBatchIsAppliedOnce() async throws {
            let cls = PostsHTTP.uniqueClass("OnceBatch")
            let batch: [String: Any] = ["requests": [
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 1]],
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 2]],
            ]]
            let id = Self.newId()
            let first = try await Self.send("POST", "/batch", batch, requestId: id)
            let retry = try await Self.send("POST", "/batch", batch, requestId: id)
            #expect(first.status == 200)
            #expect(retry.text == first.text)
            #expect(try await Self.count(cls) == 2)
        }

        /// A batch across services runs in the gateway: each write in it is applied once per `<id>.<index>`.
        @Test func aRetriedBatchAcrossServicesIsAppliedOnce() async throws {
            let cls = PostsHTTP.uniqueClass("OnceMixed")
            let name = AuthAPI.uniqueName("mixed")
            let batch: [String: Any] = ["requests": [
                ["method": "POST", "path": "/parse/users", "body": ["username": name, "password": "secret-1"]],
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 1]],
            ]]
            let id = Self.newId()
            let first = try await Self.send("POST", "/batch", batch, requestId: id)
            let retry = try await Self.send("POST", "/batch", batch, requestId: id)
            #expect(first.status == 200)
            let items = try #require((try? JSONSerialization.jsonObject(with: first.body)) as? [[String: Any]])
            #expect(items.count == 2 && items.allSatisfy { $0["success"] != nil })
            #expect(retry.text == first.text)
            #expect(try await Self.count(cls) == 1)
        }

        @Test func twoConcurrentRequestsWithOneIdApplyOnce() async throws {
            let cls = PostsHTTP.uniqueClass("OnceRace")
            _ = try await PostsHTTP.create(cls, ["n": 0])   // the class exists, so both race on the write alone
            for _ in 0..<5 {
                let id = Self.newId()
                async let a = Self.send("POST", "/classes/\(cls)", ["n": 1], requestId: id)
                async let b = Self.send("POST", "/classes/\(cls)", ["n": 1], requestId: id)
                let (first, second) = try await (a, b)
                #expect(first.status == 201)
                #expect(second.text == first.text)
            }
            #expect(try await Self.count(cls) == 6)
        }

        @Test func readsAndUnnamedWritesAreNotRemembered() async throws {
            let cls = PostsHTTP.uniqueClass("OnceRead")
            let object = try await PostsHTTP.create(cls, ["n": 0])
            let id = Self.newId()
            let read = try await Self.send("GET", "/classes/\(cls)/\(object)", requestId: id)
            #expect(read.status == 200)
            // The id a read carried does not make a later write with it a retry.
            let write = try await Self.send("POST", "/classes/\(cls)", ["n": 1], requestId: id)
            #expect(write.status == 201)
            #expect(write.json?["objectId"] as? String != object)
            _ = try await Self.send("POST", "/classes/\(cls)", ["n": 2], requestId: nil)
            _ = try await Self.send("POST", "/classes/\(cls)", ["n": 2], requestId: nil)
            #expect(try await Self.count(cls) == 4)
        }

        /// parse-server's answer by option, and a request id forgotten after the ttl.
        @Test func rejectsDuplicatesWith159WhenAskedAndForgetsAfterTheTTL() async throws {
            let settings = ["PARSE_SERVER_IDEMPOTENCY_TTL": "1", "PARSE_SERVER_IDEMPOTENCY_DUPLICATE": "reject"]
            try TestStack.control(["stop-service", "posts"])
            try TestStack.control(["start-service", "posts"], settings: settings)
            try await TestStack.run({
                let cls = PostsHTTP.uniqueClass("OnceTTL")
                let id = Self.newId()
                let first = try await Self.send("POST", "/classes/\(cls)", ["n": 1], requestId: id)
                #expect(first.status == 201)
                let retry = try await Self.send("POST", "/classes/\(cls)", ["n": 1], requestId: id)
                #expect(retry.status == 400)
                #expect(retry.text == #"{"code":159,"error":"Duplicate request"}"#)
                #expect(try await Self.count(cls) == 1)
                try await Task.sleep(for: .milliseconds(2_100))
                let late = try await Self.send("POST", "/classes/\(cls)", ["n": 1], requestId: id)
                #expect(late.status == 201)
                #expect(late.json?["objectId"] as? String != first.json?["objectId"] as? String)
                #expect(try await Self.count(cls) == 2)
            }, thenAlways: {
                try TestStack.control(["stop-service", "posts"])
                try TestStack.control(["start-service", "posts"])
            })
        }
    }
}
