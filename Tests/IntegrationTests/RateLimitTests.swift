import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension IntegrationSuite {
    /// parse-server's `rateLimit` (`PARSE_SERVER_RATE_LIMIT`) counted across two gateway processes on one stack:
    /// the stack's own, restarted with the rules, and a second one started here on another port.
    @Suite struct RateLimit {
        static let window = 4_000
        static let rules = """
            [{"requestPath":"/classes/RateLimited*","requestTimeWindow":\(window),"requestCount":4,"includeInternalRequests":true},
             {"requestPath":"/classes/RateMaster*","requestTimeWindow":\(window),"requestCount":2,"includeInternalRequests":true,
              "includeMasterKey":true,"errorResponseMessage":"Slow down."},
             {"requestPath":"/classes/RateWrites*","requestTimeWindow":\(window),"requestCount":1,"includeInternalRequests":true,
              "requestMethods":["POST"]}]
            """
        static let tooMany = #"{"code":100,"error":"Too many requests."}"#

        static var secondPort: Int { (URL(string: TestStack.serverURL)?.port ?? 21337) + 40 }
        static var secondURL: String {
            TestStack.serverURL.replacingOccurrences(of: ":\(URL(string: TestStack.serverURL)?.port ?? 21337)",
                                                     with: ":\(secondPort)")
        }

        /// Both gateways with the rules while `body` runs; the stack's gateway as it was afterwards.
        private func withTwoGateways(_ body: ([String]) async throws -> Void) async throws {
            let settings = ["PARSE_SERVER_RATE_LIMIT": Self.rules]
            try TestStack.control(["stop-service", "gateway"])
            try TestStack.control(["start-service", "gateway"], settings: settings)
            var second: pid_t = 0
            try await TestStack.run({
                guard let scratch = TestStack.environment["PARSE_TEST_DATABASE_URL"],
                      let slash = scratch.lastIndex(of: "/") else { throw TestStack.StackError(description: "no database URL") }
                let binary = (TestStack.environment["PARSE_BIN_DIR"] ?? ".build/debug") + "/gateway"
                second = try Spawned.start([binary], environment: TestStack.environment.merging([
                    "PORT": String(Self.secondPort), "PARSE_SERVER_HOST": "127.0.0.1",
                    "PARSE_AMQP_URL": TestStack.environment["PARSE_TEST_AMQP_URL"] ?? "",
                    "PARSE_RATE_LIMIT_DATABASE_URL": String(scratch[..<slash]) + "/parse_gateway",
                    "PARSE_LIVE_QUERY_UPSTREAM": "off", "PARSE_SERVER_RATE_LIMIT": Self.rules,
                    "PARSE_LOG_LEVEL": "warning",
                ]) { $1 })
                let deadline = ContinuousClock.now + .seconds(30)
                while (try? await HTTP.send("GET", "/health", base: Self.secondURL))?.status != 200 {
                    guard ContinuousClock.now < deadline else { throw TestStack.StackError(description: "second gateway not up") }
                    try await Task.sleep(for: .milliseconds(200))
                }
                try await body([TestStack.serverURL, Self.secondURL])
            }, thenAlways: {
                if second > 0 {
                    kill(second, SIGTERM)
                    _ = Spawned.wait(second)
                }
                try TestStack.control(["stop-service", "gateway"])
                try TestStack.control(["start-service", "gateway"])
            })
        }

        /// Waits for the start of a fixed window (they are counted on PostgreSQL's clock, this machine's).
        static func atWindowStart() async throws {
            let now = Int(Date().timeIntervalSince1970 * 1000)
            try await Task.sleep(for: .milliseconds(window - now % window + 50))
        }

        static func send(_ method: String, _ path: String, to base: String, body: Any? = nil,
                         master: Bool = false) async throws -> Reply {
            var headers = HTTP.appHeaders
            headers["Content-Type"] = "application/json"
            if master { headers["X-Parse-Master-Key"] = TestStack.masterKey }
            let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
            return try await HTTP.send(method, path, headers: headers, body: data, base: base)
        }

        @Test func theLimitHoldsAcrossBothGatewaysAndItsWindowResets() async throws {
            try await withTwoGateways { gateways in
                let cls = PostsHTTP.uniqueClass("RateLimited")
                try await Self.atWindowStart()
                var statuses: [Int] = []
                for index in 0..<4 {
                    statuses.append(try await Self.send("GET", "/classes/\(cls)", to: gateways[index % 2]).status)
                }
                #expect(statuses == [200, 200, 200, 200])
                for base in gateways {
                    let refused = try await Self.send("GET", "/classes/\(cls)", to: base)
                    #expect(refused.status == 429)
                    #expect(refused.text == Self.tooMany)
                }
                // A path no rule covers is not counted.
                let other = try await Self.send("GET", "/classes/\(PostsHTTP.uniqueClass("Free"))", to: gateways[0])
                #expect(other.status == 200)
                try await Self.atWindowStart()
                #expect(try await Self.send("GET", "/classes/\(cls)", to: gateways[1]).status == 200)
            }
        }

        @Test func theMasterKeyBypassesUnlessIncludeMasterKey() async throws {
            try await withTwoGateways { gateways in
                let cls = PostsHTTP.uniqueClass("RateLimited")
                try await Self.atWindowStart()
                for index in 0..<6 {
                    let reply = try await Self.send("GET", "/classes/\(cls)", to: gateways[index % 2], master: true)
                    #expect(reply.status == 200)
                }
                let counted = PostsHTTP.uniqueClass("RateMaster")
                #expect(try await Self.send("GET", "/classes/\(counted)", to: gateways[0], master: true).status == 200)
                #expect(try await Self.send("GET", "/classes/\(counted)", to: gateways[1], master: true).status == 200)
                let refused = try await Self.send("GET", "/classes/\(counted)", to: gateways[0], master: true)
                #expect(refused.status == 429)
                #expect(refused.text == #"{"code":100,"error":"Slow down."}"#)
            }
        }

        @Test func countsOnlyTheMethodsItNames() async throws {
            try await withTwoGateways { gateways in
                let cls = PostsHTTP.uniqueClass("RateWrites")
                try await Self.atWindowStart()
                #expect(try await Self.send("POST", "/classes/\(cls)", to: gateways[0], body: ["n": 1]).status == 201)
                for base in gateways {
                    #expect(try await Self.send("GET", "/classes/\(cls)", to: base).status == 200)
                }
                let refused = try await Self.send("POST", "/classes/\(cls)", to: gateways[1], body: ["n": 2])
                #expect(refused.status == 429)
                #expect(refused.text == Self.tooMany)
            }
        }

        /// Each request inside a batch is counted: a batch that would pass the limit is refused before any of it runs.
        @Test func countsEachRequestInsideABatch() async throws {
            try await withTwoGateways { gateways in
                let cls = PostsHTTP.uniqueClass("RateLimited")
                let batch: [String: Any] = ["requests": (0..<3).map { index in
                    ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": index]] as [String: Any]
                }]
                try await Self.atWindowStart()
                let first = try await Self.send("POST", "/batch", to: gateways[0], body: batch)
                #expect(first.status == 200)
                let second = try await Self.send("POST", "/batch", to: gateways[1], body: batch)
                #expect(second.status == 429)
                #expect(second.text == Self.tooMany)
                try await Self.atWindowStart()
                let count = try await Self.send("GET", "/classes/\(cls)?count=1&limit=0", to: gateways[0], master: true)
                #expect(count.json?["count"] as? Int == 3)
            }
        }
    }
}
