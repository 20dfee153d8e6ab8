import Foundation
import Testing

extension IntegrationSuite {
    /// `POST /events/<name>` and the counts read back with `GET /events/<name>`.
    @Suite struct PlatformAnalytics {
        static func counts(_ name: String) async throws -> [[String: Any]] {
            let reply = try await PostsHTTP.send("GET", "/events/\(name)", master: true)
            #expect(reply.status == 200)
            return PostsHTTP.results(reply)
        }

        @Test func appOpenedAnswersAnEmptyObject() async throws {
            let reply = try await PostsHTTP.send("POST", "/events/AppOpened", [:] as [String: Any])
            #expect(reply.status == 200)
            #expect(reply.text == "{}")
        }

        @Test func eventsAreCountedPerHourAndPerDimension() async throws {
            let name = PostsHTTP.uniqueClass("signup")
            for source in ["web", "web", "ios"] {
                let reply = try await PostsHTTP.send("POST", "/events/\(name)", ["dimensions": ["source": source, "plan": "free"]])
                #expect(reply.status == 200 && reply.text == "{}")
            }
            let rows = try await Self.counts(name)
            #expect(rows.count == 1)
            let row = try #require(rows.first)
            #expect(row["count"] as? Int == 3)
            #expect(row["name"] as? String == name)
            let dimensions = try #require(row["dimensions"] as? [String: [String: Int]])
            #expect(dimensions["source"] == ["web": 2, "ios": 1])
            #expect(dimensions["plan"] == ["free": 3])
            let hour = try #require(row["hour"] as? String)
            #expect(hour.hasSuffix(":00:00.000Z"))
        }

        @Test func eachEventIsPublishedThroughTheOutbox() async throws {
            let name = PostsHTTP.uniqueClass("opened")
            _ = try await PostsHTTP.send("POST", "/events/\(name)", ["dimensions": ["screen": "home"]])
            let rows = try VotesAPI.sql("parse_posts", """
                SELECT payload->'data'->'dimensions'->>'screen' FROM outbox
                WHERE routing_key = 'analytics.\(name)' AND payload->>'type' = 'analytics.\(name).v1'
                """)
            #expect(rows == ["home"])
        }

        /// Who was active on which day, from the events their apps sent, and the weekly cohorts: in 2003, where no
        /// other test sends events.
        @Test func activeUsersAndRetentionAreCountedFromTheEventsTheirAppsSent() async throws {
            let ann = try await AuthAPI.signUp("active"), bob = try await AuthAPI.signUp("active")
            let installation = UUID().uuidString.lowercased()
            func opened(_ day: String, token: String? = nil, installation: String? = nil) async throws {
                var headers: [String: String] = [:]
                if let token { headers["X-Parse-Session-Token"] = token }
                if let installation { headers["X-Parse-Installation-Id"] = installation }
                let reply = try await PostsHTTP.send("POST", "/events/AppOpened", ["at": ["__type": "Date", "iso": day + "T12:00:00.000Z"]],
                                                     headers: headers)
                #expect(reply.status == 200)
            }
            for day in ["2003-03-03", "2003-03-03", "2003-03-11", "2003-03-25"] { try await opened(day, token: ann.token) }
            try await opened("2003-03-05", token: bob.token)
            for day in ["2003-03-12", "2003-03-20"] { try await opened(day, installation: installation) }

            let reply = try await PostsHTTP.send("GET", "/analytics/active", master: true, query: ["from": "2003-03-03", "to": "2003-03-30"])
            let answer = try #require(reply.json, "\(reply.status) \(reply.text)")
            let days = try #require(answer["days"] as? [[String: Any]])
            #expect(days.count == 28)
            let active = Dictionary(uniqueKeysWithValues: days.compactMap { day in
                (day["day"] as? String).map { ($0, day["active"] as? Int ?? -1) } })
            #expect(active["2003-03-03"] == 1 && active["2003-03-05"] == 1 && active["2003-03-11"] == 1 && active["2003-03-04"] == 0)
            #expect(days.compactMap { $0["active"] as? Int }.reduce(0, +) == 6)
            #expect(answer["last30Days"] as? Int == 3 && answer["last7Days"] as? Int == 1 && answer["lastDay"] as? Int == 0)
            let cohorts = try #require(answer["cohorts"] as? [[String: Any]])
            #expect(cohorts.count == 2)
            #expect(cohorts.first?["week"] as? String == "2003-03-03" && cohorts.first?["new"] as? Int == 2)
            #expect(cohorts.first?["returned"] as? [Int] == [1, 0, 1])
            #expect(cohorts.last?["week"] as? String == "2003-03-10" && cohorts.last?["new"] as? Int == 1)
            #expect(cohorts.last?["returned"] as? [Int] == [1, 0])

            let anonymous = try await PostsHTTP.send("GET", "/analytics/active")
            #expect(anonymous.status == 403)
            let backwards = try await PostsHTTP.send("GET", "/analytics/active", master: true, query: ["from": "2003-03-30", "to": "2003-03-03"])
            #expect(backwards.status == 400 && backwards.code == 102)
            let bad = try await PostsHTTP.send("GET", "/analytics/active", master: true, query: ["from": "last week"])
            #expect(bad.status == 400 && bad.code == 102)
        }

        @Test func atPutsTheEventInItsOwnHour() async throws {
            let name = PostsHTTP.uniqueClass("late")
            let reply = try await PostsHTTP.send("POST", "/events/\(name)", [
                "at": ["__type": "Date", "iso": "2026-01-02T03:45:06.789Z"],
            ])
            #expect(reply.status == 200)
            let old = try await PostsHTTP.send("GET", "/events/\(name)", master: true,
                                               query: ["from": "2026-01-02T00:00:00.000Z", "to": "2026-01-03T00:00:00.000Z"])
            let rows = PostsHTTP.results(old)
            #expect(rows.count == 1)
            #expect(rows.first?["hour"] as? String == "2026-01-02T03:00:00.000Z")
            #expect(try await Self.counts(name).isEmpty)
        }

        @Test(arguments: [#"{"dimensions":{"n":1}}"#, #"{"dimensions":["a"]}"#, #"{"dimensions":{"k":{"x":"y"}}}"#,
                          #"{"at":"yesterday"}"#])
        func badBodiesAreRefusedAndNotCounted(body: String) async throws {
            let name = PostsHTTP.uniqueClass("bad")
            let reply = try await PostsHTTP.send("POST", "/events/\(name)", body)
            #expect(reply.status == 400)
            #expect(reply.code == 107)
            if body.contains("dimensions") { #expect(reply.error == "Dimensions expected string keys and values.") }
            #expect(try await Self.counts(name).isEmpty)
        }

        @Test func aNameThatCannotBeARoutingKeyIsRefused() async throws {
            let reply = try await PostsHTTP.send("POST", "/events/a.b*", [:] as [String: Any])
            #expect(reply.status == 400 && reply.code == 105)
        }

        @Test func countsNeedTheMasterKey() async throws {
            let reply = try await PostsHTTP.send("GET", "/events/AppOpened")
            #expect(reply.status == 403)
            #expect(reply.text == #"{"error":"unauthorized: master key is required"}"#)
        }
    }
}
