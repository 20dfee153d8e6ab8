import Foundation
import Testing

extension IntegrationSuite {
    /// `POST /push`, `_PushStatus`, the push job and the HTTP push adapter, against a local receiver.
    @Suite struct PlatformPush {
        static func push(_ body: Any, master: Bool = true) async throws -> Reply {
            try await PostsHTTP.send("POST", "/push", body, master: master)
        }

        static func status(_ id: String) async throws -> [String: Any] {
            try #require(try await PostsHTTP.send("GET", "/classes/_PushStatus/\(id)", master: true).json)
        }

        static func statusCount() async throws -> Int {
            let reply = try await PostsHTTP.find("_PushStatus", ["count": 1, "limit": 0], master: true)
            return reply.json?["count"] as? Int ?? 0
        }

        /// Polls the push's status until it leaves `pending`/`scheduled`/`running` or 60 s pass.
        static func finished(_ id: String) async throws -> [String: Any] {
            let deadline = ContinuousClock.now + .seconds(60)
            while true {
                let status = try await Self.status(id)
                let state = status["status"] as? String ?? ""
                if !["pending", "scheduled", "running"].contains(state) || ContinuousClock.now > deadline { return status }
                try await Task.sleep(for: .milliseconds(200))
            }
        }

        /// Restarts the adapter so that it delivers every device type to `receiver`.
        static func deliver(to receiver: PushReceiver) throws {
            try TestStack.control(["stop-service", "push-adapter"])
            try TestStack.control(["start-service", "push-adapter"], settings: ["PARSE_PUSH_HTTP_ENDPOINTS": "*=\(receiver.url)"])
        }

        static func installations(_ count: Int, channel: String, deviceType: String = "android") async throws -> [String] {
            var tokens: [String] = []
            for _ in 0..<count {
                let token = "tok-" + UUID().uuidString
                let reply = try await PostsHTTP.send("POST", "/installations", [
                    "installationId": UUID().uuidString, "deviceToken": token, "deviceType": deviceType,
                    "channels": [channel], "badge": 1,
                ])
                guard reply.status == 201 else { throw PostsTestError(description: "installation: \(reply.text)") }
                tokens.append(token)
            }
            return tokens
        }

        @Test func needsTheMasterKeyAndStoresNothingWithout() async throws {
            let before = try await Self.statusCount()
            let client = try await Self.push(["channels": ["x"], "data": ["alert": "hi"]], master: false)
            #expect(client.status == 403)
            #expect(client.text == #"{"error":"unauthorized: master key is required"}"#)
            var headers = HTTP.appHeaders
            headers["X-Parse-Master-Key"] = TestStack.readOnlyMasterKey
            headers["Content-Type"] = "application/json"
            let readOnly = try await HTTP.send("POST", "/push", headers: headers, body: Data(#"{"channels":["x"]}"#.utf8))
            #expect(readOnly.status == 400 && readOnly.code == 119)
            #expect(readOnly.error == "read-only masterKey isn't allowed to send push notifications.")
            #expect(try await Self.statusCount() == before)
        }

        @Test(arguments: [
            (#"{"data":{"alert":"x"}}"#, 115, "Sending a push requires either \"channels\" or a \"where\" query."),
            (#"{"channels":["a"],"where":{}}"#, 115, "Channels and query can not be set at the same time."),
            (#"{"where":{"deviceType":{"$bogus":1}}}"#, 102, nil),
            (#"{"where":5}"#, 102, nil),
            (#"{"channels":"news"}"#, 115, nil),
            (#"{"channels":[],"push_time":"soon"}"#, 115, "soon is not valid time."),
            (#"{"channels":[],"expiration_interval":-1}"#, 115, "expiration_interval must be a number greater than 0"),
            (#"{"channels":[],"expiration_time":"2030-01-01T00:00:00Z","expiration_interval":9}"#, 115,
             "Both expiration_time and expiration_interval cannot be set"),
            (#"{"channels":[],"data":{"badge":"lots"}}"#, 115, nil),
        ] as [(String, Int, String?)])
        func malformedPushesAreRefusedAndStoreNothing(body: String, code: Int, message: String?) async throws {
            let before = try await Self.statusCount()
            let reply = try await Self.push(body)
            #expect(reply.status == 400)
            #expect(reply.code == code, "\(reply.text)")
            if let message { #expect(reply.error == message) }
            #expect(reply.header("X-Parse-Push-Status-Id") == nil)
            #expect(try await Self.statusCount() == before)
        }

        @Test func aPushToAChannelReachesExactlyItsInstallations() async throws {
            let receiver = try PushReceiver()
            try Self.deliver(to: receiver)
            let channel = PostsHTTP.uniqueClass("news"), other = PostsHTTP.uniqueClass("sports")
            let wanted = try await Self.installations(3, channel: channel)
            _ = try await Self.installations(2, channel: other)
            let data: [String: Any] = ["alert": "Breaking", "badge": "Increment", "sound": "default", "custom": "42"]
            let reply = try await Self.push(["channels": [channel], "data": data])
            #expect(reply.status == 200)
            #expect(reply.text == #"{"result":true}"#)
            let id = try #require(reply.header("X-Parse-Push-Status-Id"))
            let status = try await Self.finished(id)
            #expect(status["status"] as? String == "succeeded")
            #expect(status["numSent"] as? Int == 3)
            #expect(status["numFailed"] as? Int == 0)
            #expect((status["sentPerType"] as? [String: Int]) == ["android": 3])
            #expect(status["source"] as? String == "rest")
            #expect(status["query"] as? String == #"{"channels":{"$in":["\#(channel)"]}}"#)
            #expect((status["pushHash"] as? String)?.count == 32)
            let delivered = receiver.notifications(of: id)
            #expect(delivered.count == 3)
            #expect(Set(delivered.compactMap(\.deviceToken)) == Set(wanted))
            let first = try #require(delivered.first?.body["data"] as? [String: Any])
            #expect(first["alert"] as? String == "Breaking")
            #expect(first["custom"] as? String == "42")
            #expect(first["badge"] as? Int == 2)
            let rows = PostsHTTP.results(try await PostsHTTP.find("_Installation", ["where": ["channels": channel]], master: true))
            #expect(rows.map { $0["badge"] as? Int } == [2, 2, 2])
            let others = PostsHTTP.results(try await PostsHTTP.find("_Installation", ["where": ["channels": other]], master: true))
            #expect(others.map { $0["badge"] as? Int } == [1, 1])
            await receiver.stop()
        }

        @Test func aPushToNoDeviceSucceedsAtOnceWithNothingSent() async throws {
            let reply = try await Self.push(["where": ["deviceType": "nosuchtype"], "data": ["alert": "none"]])
            let id = try #require(reply.header("X-Parse-Push-Status-Id"))
            let status = try await Self.finished(id)
            #expect(status["status"] as? String == "succeeded")
            #expect(status["numSent"] as? Int == 0)
            #expect(status["payload"] as? String == #"{"alert":"none"}"#)
        }

        @Test func aScheduledPushSurvivesAKillOfPostsAndIsDeliveredOnceWhenDue() async throws {
            let receiver = try PushReceiver()
            try Self.deliver(to: receiver)
            let channel = PostsHTTP.uniqueClass("later")
            let tokens = try await Self.installations(2, channel: channel, deviceType: "ios")
            let due = Date().addingTimeInterval(6)
            let reply = try await Self.push(["channels": [channel], "data": ["alert": "later"],
                                             "push_time": ISO8601DateFormatter().string(from: due)])
            let id = try #require(reply.header("X-Parse-Push-Status-Id"))
            #expect(try await Self.status(id)["status"] as? String == "scheduled")
            try VoteConsumerProcess.kill(service: "posts")
            try TestStack.control(["start-service", "posts"])
            let status = try await Self.finished(id)
            #expect(status["status"] as? String == "succeeded")
            #expect(status["numSent"] as? Int == 2)
            // Nothing more arrives once the push is done: each device got it once, and not before it was due.
            try await Task.sleep(for: .seconds(2))
            let delivered = receiver.notifications(of: id)
            #expect(delivered.count == 2)
            #expect(Set(delivered.compactMap(\.deviceToken)) == Set(tokens))
            #expect(delivered.allSatisfy { $0.receivedAt >= due.addingTimeInterval(-1) })
            await receiver.stop()
        }

        @Test func failedDeliveriesAreCountedPerType() async throws {
            try TestStack.control(["stop-service", "push-adapter"])
            try TestStack.control(["start-service", "push-adapter"], settings: ["PARSE_PUSH_HTTP_ENDPOINTS": "*=http://127.0.0.1:9/closed"])
            let channel = PostsHTTP.uniqueClass("nowhere")
            _ = try await Self.installations(2, channel: channel, deviceType: "winphone")
            let reply = try await Self.push(["channels": [channel], "data": ["alert": "lost"]])
            let id = try #require(reply.header("X-Parse-Push-Status-Id"))
            let status = try await Self.finished(id)
            #expect(status["status"] as? String == "succeeded")
            #expect(status["numSent"] as? Int == 0)
            #expect(status["numFailed"] as? Int == 2)
            #expect((status["failedPerType"] as? [String: Int]) == ["winphone": 2])
        }

        @Test func theStatusIsForTheMasterKeyOnly() async throws {
            let reply = try await Self.push(["channels": [PostsHTTP.uniqueClass("c")], "data": [:] as [String: Any]])
            let id = try #require(reply.header("X-Parse-Push-Status-Id"))
            let client = try await PostsHTTP.send("GET", "/classes/_PushStatus/\(id)")
            #expect(client.status == 400 && client.code == 119)
            #expect(client.error == "Clients aren't allowed to perform the get operation on the _PushStatus collection.")
        }
    }
}
