import Foundation
import Testing

extension IntegrationSuite {
    /// A subscription whose `$regex` backtracks catastrophically costs its own subscription, never the others: its
    /// matches give up at PCRE2's limits, its client gets an error and loses that subscription, and another client's
    /// frames and live's health keep coming while saves that the hostile pattern has to look at are made.
    @Suite struct LiveRegex {
        static func op(_ message: [String: Any]?) -> String? { message?["op"] as? String }

        @Test func aCatastrophicRegexIsDroppedAndOthersAreServed() async throws {
            let className = PostsHTTP.uniqueClass("LiveRegex")
            let hostile = try LiveQueryClient()
            try hostile.connect()
            for requestId in 1...10 {
                let subscribed = try hostile.subscribe(requestId, className: className, where: ["name": ["$regex": "(a+)+$"]])
                #expect(Self.op(subscribed) == "subscribed")
            }
            let calm = try LiveQueryClient()
            try calm.connect()
            #expect(Self.op(try calm.subscribe(1, className: className, where: ["score": ["$gte": 0]])) == "subscribed")

            let liveHealth = TestStack.environment["PARSE_TEST_LIVE_QUERY_URL"].map {
                $0.replacingOccurrences(of: "ws://", with: "http://") + "/health"
            } ?? "http://127.0.0.1:21338/parse/health"
            for round in 0..<5 {
                let id = try await PostsHTTP.create(className, ["name": String(repeating: "a", count: 30) + "!", "score": round])
                let frame = try #require(try calm.receive(), "the calm subscriber got nothing for save \(round)")
                #expect(Self.op(frame) == "create")
                #expect((frame["object"] as? [String: Any])?["objectId"] as? String == id)
                let health = try await HTTP.send("GET", "", base: liveHealth)
                #expect(health.status == 200)
            }
            // Each hostile subscription was dropped at the first object it gave up on, with an error naming it.
            var dropped: Set<Int> = []
            while dropped.count < 10, let message = try hostile.receive(timeout: 5) {
                #expect(Self.op(message) == "error", "\(message)")
                #expect(message["code"] as? Int == 102)
                #expect((message["error"] as? String)?.contains("$regex") == true)
                if let requestId = message["requestId"] as? Int { dropped.insert(requestId) }
            }
            #expect(dropped == Set(1...10))
            #expect(try hostile.expectNothing() == nil, "a dropped subscription still sent something")
        }
    }
}
