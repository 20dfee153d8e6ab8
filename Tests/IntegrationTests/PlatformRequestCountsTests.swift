import Foundation
import Testing

extension IntegrationSuite {
    /// API requests per hour, route template and status, counted by the gateway and kept by posts, read with
    /// `GET /analytics/requests` (master key).
    @Suite struct PlatformRequestCounts {
        static func count(route: String, status: Int) async throws -> Double {
            let reply = try await HTTP.send("GET", "/analytics/requests", headers: DashboardHTTP.masterHeaders)
            #expect(reply.status == 200, "\(reply.text)")
            let rows = (reply.json?["results"] as? [[String: Any]]) ?? []
            return rows.filter { $0["route"] as? String == route && $0["status"] as? Double == Double(status) }
                .reduce(0) { $0 + (($1["count"] as? Double) ?? 0) }
        }

        @Test func requestsAreCountedByRouteTemplateAndStatus() async throws {
            let found = "GET /classes/:className/:objectId"
            let foundBefore = try await Self.count(route: found, status: 404)
            let listBefore = try await Self.count(route: "GET /classes/:className", status: 200)
            for index in 0..<3 {
                let reply = try await HTTP.send("GET", "/classes/CountedThing/missing\(index)", headers: HTTP.appHeaders)
                #expect(reply.status == 404)
            }
            let listed = try await HTTP.send("GET", "/classes/CountedThing", headers: HTTP.appHeaders)
            #expect(listed.status == 200)
            let deadline = ContinuousClock.now + .seconds(30)
            var missing = 0.0, lists = 0.0
            repeat {
                try await Task.sleep(for: .milliseconds(300))
                missing = try await Self.count(route: found, status: 404) - foundBefore
                lists = try await Self.count(route: "GET /classes/:className", status: 200) - listBefore
            } while (missing < 3 || lists < 1) && ContinuousClock.now < deadline
            #expect(missing >= 3, "three 404 gets counted under one template")
            #expect(lists >= 1)
        }

        @Test func theCountsNeedTheMasterKey() async throws {
            let reply = try await HTTP.send("GET", "/analytics/requests", headers: HTTP.appHeaders)
            #expect(reply.status == 403)
            let readOnly = try await HTTP.send("GET", "/analytics/requests", headers: [
                "X-Parse-Application-Id": TestStack.applicationId, "X-Parse-Master-Key": TestStack.readOnlyMasterKey])
            #expect(readOnly.status == 200)
            let wrongMethod = try await HTTP.send("POST", "/analytics/requests", headers: DashboardHTTP.masterHeaders,
                                                  body: Data("{}".utf8))
            #expect(wrongMethod.status == 404)
            let badDate = try await HTTP.send("GET", "/analytics/requests?from=yesterday", headers: DashboardHTTP.masterHeaders)
            #expect(badDate.status == 400 && badDate.json?["code"] as? Int == 102)
        }

        @Test func schemasListUsersAndRolesAsParseServerDoes() async throws {
            let all = try await HTTP.send("GET", "/schemas", headers: DashboardHTTP.masterHeaders)
            let classes = (all.json?["results"] as? [[String: Any]]) ?? []
            let user = try #require(classes.first { $0["className"] as? String == "_User" })
            let fields = try #require(user["fields"] as? [String: [String: String]])
            #expect(fields["username"] == ["type": "String"] && fields["emailVerified"] == ["type": "Boolean"])
            let role = try await HTTP.send("GET", "/schemas/_Role", headers: DashboardHTTP.masterHeaders)
            let roleFields = try #require(role.json?["fields"] as? [String: [String: String]])
            #expect(roleFields["users"] == ["type": "Relation", "targetClass": "_User"])
            let change = try await HTTP.send("PUT", "/schemas/_User", headers: DashboardHTTP.masterHeaders,
                                             body: Data(#"{"fields":{"nick":{"type":"String"}}}"#.utf8))
            #expect(change.status == 400 && change.json?["code"] as? Int == 255)
        }
    }
}
