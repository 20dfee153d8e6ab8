import Foundation
import Testing

extension IntegrationSuite {
    /// LiveQuery's Cloud Code triggers through webhooks: `beforeConnect` (on `@Connect`) and `beforeSubscribe`.
    @Suite struct LiveTriggers {
        /// Connects until the answer is not `connected` (live learns of a registration from its `hooks.changed`
        /// event, a moment after the registration is answered), for at most 10 s.
        private static func refusedConnect(installationId: String) async throws -> [String: Any]? {
            for _ in 0..<100 {
                let client = try LiveQueryClient()
                let answer = try client.connect(installationId: installationId)
                if answer?["op"] as? String != "connected" { return answer }
                try await Task.sleep(for: .milliseconds(100))
            }
            return nil
        }

        @Test func beforeConnectMayRefuseAConnection() async throws {
            let receiver = try TriggerWebhookReceiver()
            receiver.handle("/connect") { body in
                body["installationId"] == .string("blocked-device")
                    ? TriggerHooks.refusal(141, "Not this device.") : TriggerHooks.success(.object([:]))
            }
            try await TriggerHooks.register("@Connect", "beforeConnect", url: receiver.url("/connect"))
            try await TestStack.run({
                let refused = try #require(try await Self.refusedConnect(installationId: "blocked-device"))
                #expect(refused["op"] as? String == "error")
                #expect(refused["code"] as? Int == 141 && refused["error"] as? String == "Not this device.")
                let allowed = try LiveQueryClient()
                #expect(try allowed.connect(installationId: "good-device")?["op"] as? String == "connected")
                let seen = try #require(receiver.calls("/connect").last?.body)
                #expect(seen["triggerName"] == .string("beforeConnect") && seen["useMasterKey"] == .bool(false))
                #expect(seen["event"] == .string("connect"))
            }, thenAlways: {
                try await TriggerHooks.remove("@Connect", "beforeConnect")
            })
            // Until live has heard of the removal, connections still reach the receiver.
            for _ in 0..<100 {
                let before = receiver.calls("/connect").count
                _ = try LiveQueryClient().connect(installationId: "after")
                if receiver.calls("/connect").count == before { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            await receiver.stop()
        }

        /// The trigger's query replaces the client's, and its refusal is the subscription's error.
        @Test func beforeSubscribeMayChangeOrRefuseASubscription() async throws {
            let className = PostsHTTP.uniqueClass("LiveTrig")
            let receiver = try TriggerWebhookReceiver()
            receiver.handle("/subscribe") { body in
                if body["query"]?["where"]?["secret"] != nil { return TriggerHooks.refusal(119, "No secrets.") }
                return TriggerHooks.success(.object(["where": .object(["score": .object(["$gte": .number(10)])])]))
            }
            try await TriggerHooks.register(className, "beforeSubscribe", url: receiver.url("/subscribe"))
            try await TestStack.run({
                let client = try LiveQueryClient()
                try client.connect()
                var answer: [String: Any]?
                for attempt in 0..<100 {
                    answer = try client.subscribe(attempt + 1, className: className, where: ["secret": true])
                    if answer?["op"] as? String != "subscribed" { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(answer?["op"] as? String == "error" && answer?["code"] as? Int == 119)
                #expect(answer?["error"] as? String == "No secrets.")

                let subscribed = try #require(try client.subscribe(500, className: className))
                #expect(subscribed["op"] as? String == "subscribed")
                _ = try await PostsHTTP.create(className, ["score": 1])
                let id = try await PostsHTTP.create(className, ["score": 20])
                let created = try #require(try client.receive())
                #expect(created["op"] as? String == "create" && created["requestId"] as? Int == 500)
                #expect((created["object"] as? [String: Any])?["objectId"] as? String == id)
                let seen = try #require(receiver.calls("/subscribe").last?.body)
                #expect(seen["query"]?["className"] == .string(className) && seen["requestId"] == .number(500))
            }, thenAlways: {
                try await TriggerHooks.remove(className, "beforeSubscribe")
            })
            await receiver.stop()
        }

        /// A subscription whose trigger cannot be asked (cloud stopped) is refused, not let through unchecked.
        @Test func aSubscriptionWhoseTriggerCannotRunIsRefused() async throws {
            let className = PostsHTTP.uniqueClass("LiveDown")
            let receiver = try TriggerWebhookReceiver()
            receiver.handle("/subscribe") { _ in TriggerHooks.success(.object([:])) }
            try await TriggerHooks.register(className, "beforeSubscribe", url: receiver.url("/subscribe"))
            try await TestStack.run({
                let client = try LiveQueryClient()
                try client.connect()
                // Until live has heard of the registration, subscriptions do not reach the receiver.
                for attempt in 0..<100 where receiver.calls("/subscribe").isEmpty {
                    _ = try client.subscribe(attempt + 1, className: className)
                    if receiver.calls("/subscribe").isEmpty { try await Task.sleep(for: .milliseconds(100)) }
                }
                try #require(!receiver.calls("/subscribe").isEmpty)
                try await TestStack.while(["stop-service", "cloud"], restartWith: ["start-service", "cloud"]) {
                    let refused = try #require(try client.subscribe(900, className: className))
                    #expect(refused["op"] as? String == "error" && refused["code"] as? Int == 141, "\(refused)")
                    #expect((refused["error"] as? String)?.hasPrefix("Cloud Code is not reachable") == true, "\(refused)")
                    #expect(refused["requestId"] as? Int == 900)
                }
            }, thenAlways: {
                try await TriggerHooks.remove(className, "beforeSubscribe")
            })
            await receiver.stop()
        }

        /// parse-server's `afterLiveQueryEvent`: per frame, the trigger may stop it, change it or refuse it, and the
        /// subscription still gets the class's events in order.
        @Test func afterEventMayStopChangeOrRefuseAFrame() async throws {
            let className = PostsHTTP.uniqueClass("LiveAfter")
            let receiver = try TriggerWebhookReceiver()
            receiver.handle("/event") { body in
                switch body["object"]?["score"]?.numberValue {
                case 13: return TriggerHooks.success(.object(["sendEvent": .bool(false)]))
                case 7:
                    var object = body["object"]?.objectValue ?? [:]
                    object["lucky"] = .bool(true)
                    return TriggerHooks.success(.object(["object": .object(object)]))
                case 4: return TriggerHooks.refusal(141, "Not four.")
                default: return TriggerHooks.success(.object([:]))
                }
            }
            try await TriggerHooks.register(className, "afterEvent", url: receiver.url("/event"))
            try await TestStack.run({
                let client = try LiveQueryClient()
                try client.connect()
                #expect(try client.subscribe(1, className: className)?["op"] as? String == "subscribed")
                // live hears of the registration a moment after it is answered: wait until a frame is stopped.
                // A frame that came through is read at once, so the wait is counted in time, not in tries.
                var stopped = false
                for _ in 0..<100 where !stopped {
                    _ = try await PostsHTTP.create(className, ["score": 13])
                    if try client.expectNothing(for: 1) == nil {
                        stopped = receiver.calls("/event").contains { $0.body["object"]?["score"] == .number(13) }
                    } else {
                        try await Task.sleep(for: .milliseconds(100))
                    }
                }
                try #require(stopped)
                for score in [1, 7, 13, 4, 2] { _ = try await PostsHTTP.create(className, ["score": score]) }
                var frames: [[String: Any]] = []
                while frames.count < 4, let frame = try client.receive() { frames.append(frame) }
                let scores = frames.map { ($0["object"] as? [String: Any])?["score"] as? Int }
                #expect(scores == [1, 7, nil, 2], "\(frames)")
                #expect((frames[1]["object"] as? [String: Any])?["lucky"] as? Bool == true)
                #expect(frames[2]["op"] as? String == "error" && frames[2]["code"] as? Int == 141)
                #expect(frames[2]["error"] as? String == "Not four." && frames[2]["requestId"] as? Int == 1)
                let seen = try #require(receiver.calls("/event").last?.body)
                #expect(seen["triggerName"] == .string("afterEvent") && seen["event"] == .string("create"))
                #expect(seen["requestId"] == .number(1) && seen["useMasterKey"] == .bool(false))
            }, thenAlways: {
                try await TriggerHooks.remove(className, "afterEvent")
            })
            await receiver.stop()
        }
    }
}
