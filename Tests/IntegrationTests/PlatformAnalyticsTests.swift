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
