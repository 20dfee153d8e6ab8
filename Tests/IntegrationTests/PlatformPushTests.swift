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
            (#"{"channels":[],"push_time":1e300}"#, 115, nil),
            (#"{"channels":[],"expiration_time":-9e12}"#, 115, nil),
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

        /// parse-server's localization: each device gets the alert of its `localeIdentifier`, and none the
        /// `alert-<locale>` keys.
        @Test func eachDeviceGetsTheAlertOfItsLocale() async throws {
            let receiver = try PushReceiver()
            try Self.deliver(to: receiver)
            let channel = PostsHTTP.uniqueClass("locales")
            var tokens: [String: String] = [:]
            for locale in ["fr-FR", "fr-CA", "de-DE", nil] as [String?] {
                let token = "tok-" + UUID().uuidString
                var fields: [String: Any] = ["installationId": UUID().uuidString, "deviceToken": token,
                                             "deviceType": "android", "channels": [channel]]
                if let locale { fields["localeIdentifier"] = locale }
                #expect(try await PostsHTTP.send("POST", "/installations", fields).status == 201)
                tokens[locale ?? "none"] = token
            }
            let reply = try await Self.push(["channels": [channel], "data": [
                "alert": "Hello", "alert-fr": "Bonjour", "alert-fr-CA": "Allô", "title-fr": "Salut"]])
            let id = try #require(reply.header("X-Parse-Push-Status-Id"))
            #expect(try await Self.finished(id)["numSent"] as? Int == 4)
            let byToken = Dictionary(receiver.notifications(of: id).compactMap { note in
                note.deviceToken.map { ($0, note.body["data"] as? [String: Any] ?? [:]) }
            }, uniquingKeysWith: { first, _ in first })
            #expect(byToken[tokens["fr-FR"]!]?["alert"] as? String == "Bonjour")
            #expect(byToken[tokens["fr-FR"]!]?["title"] as? String == "Salut")
            #expect(byToken[tokens["fr-CA"]!]?["alert"] as? String == "Allô")
            #expect(byToken[tokens["de-DE"]!]?["alert"] as? String == "Hello")
            #expect(byToken[tokens["none"]!]?["alert"] as? String == "Hello" && byToken[tokens["none"]!]?["title"] == nil)
            #expect(byToken.values.allSatisfy { data in !data.keys.contains { $0.hasPrefix("alert-") || $0.hasPrefix("title-") } })
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

        /// A `push_time` without a zone: each device gets the push when its own zone reaches that time.
        @Test func aPushAtALocalTimeReachesEachDeviceWhenItsZoneGetsThere() async throws {
            let receiver = try PushReceiver()
            try Self.deliver(to: receiver)
            let channel = PostsHTTP.uniqueClass("local")
            var tokens: [String: String] = [:]
            // UTC+14 is past the time already; UTC and an unknown zone (read as UTC) reach it in a few seconds;
            // UTC-11 only in eleven hours.
            for zone in ["Pacific/Kiritimati", "UTC", "Mars/Olympus_Mons", "Pacific/Pago_Pago"] {
                let token = "tok-" + UUID().uuidString
                let reply = try await PostsHTTP.send("POST", "/installations", [
                    "installationId": UUID().uuidString, "deviceToken": token, "deviceType": "android",
                    "channels": [channel], "timeZone": zone,
                ])
                #expect(reply.status == 201, "\(reply.text)")
                tokens[zone] = token
            }
            let due = Date().addingTimeInterval(8)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
            let local = formatter.string(from: due).replacingOccurrences(of: "Z", with: "")
            let reply = try await Self.push(["channels": [channel], "data": ["alert": "local"], "push_time": local])
            let id = try #require(reply.header("X-Parse-Push-Status-Id"), "\(reply.text)")
            #expect(try await Self.status(id)["pushTime"] as? String == local + ".000", "kept without a zone")
            let delivered = { Set(receiver.notifications(of: id).compactMap(\.deviceToken)) }
            let deadline = ContinuousClock.now + .seconds(60)
            while delivered().count < 3 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
            #expect(delivered() == Set([tokens["Pacific/Kiritimati"], tokens["UTC"], tokens["Mars/Olympus_Mons"]].compactMap { $0 }))
            let byToken = Dictionary(receiver.notifications(of: id).compactMap { note in note.deviceToken.map { ($0, note.receivedAt) } }) { a, _ in a }
            if let early = byToken[tokens["Pacific/Kiritimati"] ?? ""], let utc = byToken[tokens["UTC"] ?? ""] {
                #expect(early < due, "UTC+14 got it at once")
                #expect(utc >= due.addingTimeInterval(-1), "UTC got it when its clock reached the time")
            }
            // UTC-11 is still to come: the push is running, not done.
            try await Task.sleep(for: .seconds(2))
            let status = try await Self.status(id)
            #expect(status["status"] as? String == "running" && status["numSent"] as? Int == 3, "\(status)")
            #expect(receiver.notifications(of: id).count == 3)
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
            // Why, as the adapter said it, counted per reason.
            let failures = try #require((status["errorMessage"] as? [String: Any])?["failures"] as? [[String: Any]])
            #expect(failures.compactMap { $0["count"] as? Int }.reduce(0, +) == 2, "\(failures)")
            #expect(failures.allSatisfy { ($0["reason"] as? String).map { !$0.isEmpty && $0 != "no reason given" } ?? false })
        }

        /// Rows of the push's `push.requested.v1` events in posts' outbox, one per device, as `field|field|...`.
        static func eventDevices(_ id: String, _ columns: String, where condition: String = "true") throws -> [String] {
            try VotesAPI.sql("parse_posts", """
                SELECT \(columns) FROM outbox AS o, jsonb_array_elements(o.payload->'data'->'devices') AS d
                WHERE o.payload->>'subject' = '_PushStatus/\(id)' AND \(condition)
                """)
        }

        @Test func aPushOfManyPagesReachesEveryInstallationOnceInEventsOfOneDeviceType() async throws {
            let channel = PostsHTTP.uniqueClass("crowd")
            _ = try await Self.installations(1, channel: channel)   // the class, with its default fields
            // More installations than two pages hold, planted with SQL: the HTTP route would take minutes for them.
            let prefix = "p" + channel.suffix(10), count = 2_345
            _ = try VotesAPI.sql("parse_posts", """
                INSERT INTO classes.\\"_Installation\\" (\\"objectId\\", \\"createdAt\\", \\"updatedAt\\", \\"installationId\\",
                    \\"deviceToken\\", \\"deviceType\\", channels, badge, \\"timeZone\\")
                SELECT '\(prefix)' || i, now(), now(), md5('\(prefix)' || i), 'tok' || md5('\(prefix)' || i),
                    CASE WHEN i % 3 = 0 THEN 'ios' ELSE 'android' END, '[\\"\(channel)\\"]'::jsonb, i % 4,
                    CASE WHEN i % 5 = 0 THEN 'Europe/Paris' END
                FROM generate_series(1, \(count)) AS i
                """)
            let reply = try await Self.push(["channels": [channel], "data": ["alert": "all", "badge": "Increment"]])
            let id = try #require(reply.header("X-Parse-Push-Status-Id"))
            let status = try await Self.finished(id)
            #expect(status["status"] as? String == "succeeded")
            #expect((status["numSent"] as? Int ?? 0) + (status["numFailed"] as? Int ?? 0) == count + 1)
            #expect(try Self.eventDevices(id, "count(*), count(DISTINCT d->>'objectId')") == ["\(count + 1)|\(count + 1)"])
            // At most 500 devices an event, all of the event's device type.
            #expect(try VotesAPI.sql("parse_posts", """
                SELECT count(*) FROM outbox WHERE payload->>'subject' = '_PushStatus/\(id)' AND payload->>'type' = 'push.requested.v1'
                    AND (jsonb_array_length(payload->'data'->'devices') > 500 OR EXISTS (
                        SELECT 1 FROM jsonb_array_elements(payload->'data'->'devices') AS d
                        WHERE routing_key <> 'push.requested.' || (d->>'deviceType')))
                """) == ["0"])
            #expect(try VotesAPI.sql("parse_posts", """
                SELECT count(*) FROM outbox WHERE payload->>'subject' = '_PushStatus/\(id)' AND payload->>'type' = 'push.requested.v1'
                """).first.flatMap(Int.init) ?? 0 >= 5)
            // Each badge went up by one, and each device carries its installation's new badge.
            #expect(try VotesAPI.sql("parse_posts", """
                SELECT count(*) FROM classes.\\"_Installation\\"
                WHERE \\"objectId\\" LIKE '\(prefix)%' AND badge = substr(\\"objectId\\", \(prefix.count + 1))::int % 4 + 1
                """) == ["\(count)"])
            #expect(try Self.eventDevices(id, "count(*)", where: """
                (d->>'badge')::float8 = (SELECT badge FROM classes.\\"_Installation\\" AS i WHERE i.\\"objectId\\" = d->>'objectId')
                """) == ["\(count + 1)"])
            // A field an installation lacks is left out of its device rather than sent as null.
            #expect(try Self.eventDevices(id, "count(*) FILTER (WHERE d ? 'timeZone'), count(*) FILTER (WHERE d ? 'localeIdentifier')")
                    == ["\(count / 5)|0"])
        }

        @Test func eachDeviceCarriesItsInstallationsFieldsAndABadgeSetByThePush() async throws {
            let channel = PostsHTTP.uniqueClass("fields")
            let installationId = UUID().uuidString
            let created = try await PostsHTTP.send("POST", "/installations", [
                "installationId": installationId, "deviceToken": "tok-\(channel)", "deviceType": "ios",
                "channels": [channel], "badge": 3, "localeIdentifier": "fr-FR", "timeZone": "Europe/Paris",
            ])
            let objectId = try #require(created.json?["objectId"] as? String)
            let set = try await Self.push(["channels": [channel], "data": ["alert": "seven", "badge": 7]])
            let setId = try #require(set.header("X-Parse-Push-Status-Id"))
            #expect(try await Self.finished(setId)["status"] as? String == "succeeded")
            let expected = """
                {"objectId":"\(objectId)","deviceToken":"tok-\(channel)","deviceType":"ios",
                 "installationId":"\(installationId.lowercased())","badge":7,"localeIdentifier":"fr-FR","timeZone":"Europe/Paris"}
                """.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: "\"", with: "\\\"")
            #expect(try Self.eventDevices(setId, "d = '\(expected)'::jsonb") == ["t"])
            #expect(try VotesAPI.sql("parse_posts", """
                SELECT routing_key, payload->'data'->>'pushStatusId', payload->'data'->'data'->>'alert' FROM outbox
                WHERE payload->>'subject' = '_PushStatus/\(setId)' AND payload->>'type' = 'push.requested.v1'
                """) == ["push.requested.ios|\(setId)|seven"])
            // A push that leaves badges alone changes no installation and sends the stored badge.
            let plain = try await Self.push(["channels": [channel], "data": ["alert": "plain"]])
            let plainId = try #require(plain.header("X-Parse-Push-Status-Id"))
            #expect(try await Self.finished(plainId)["status"] as? String == "succeeded")
            #expect(try Self.eventDevices(plainId, "d->>'badge'") == ["7"])
            let row = try await PostsHTTP.send("GET", "/installations/\(objectId)", master: true)
            #expect(row.json?["badge"] as? Int == 7)
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
