import Foundation
import Testing

extension IntegrationSuite {
    /// parse-server's `maintenanceKey` (`PARSE_SERVER_MAINTENANCE_KEY`, from loopback only by default): it reads and
    /// writes objects past ACLs and class-level permissions and sets what only the master key sets on data
    /// (`emailVerified`, `createdAt` on a create); the master key's administration routes refuse it with their 403,
    /// and Cloud Code functions see no master for it.
    @Suite struct MaintenanceKey {
        static func send(_ method: String, _ path: String, _ body: Any? = nil) async throws -> Reply {
            try await PostsHTTP.send(method, path, body, headers: ["X-Parse-Maintenance-Key": TestStack.maintenanceKey])
        }

        @Test func readsAndWritesPastACLsAndClassPermissions() async throws {
            let cls = PostsHTTP.uniqueClass("Maint")
            let hidden = try await PostsHTTP.create(cls, ["n": 1, "ACL": [:] as [String: Any]], master: true)
            #expect(try await PostsHTTP.send("GET", "/classes/\(cls)/\(hidden)").status == 404)

            let read = try await Self.send("GET", "/classes/\(cls)/\(hidden)")
            #expect(read.status == 200 && read.json?["n"] as? Int == 1, "\(read.text)")
            let updated = try await Self.send("PUT", "/classes/\(cls)/\(hidden)", ["n": 2])
            #expect(updated.status == 200, "\(updated.text)")
            let closed = try await PostsHTTP.send("PUT", "/schemas/\(cls)", ["classLevelPermissions": [
                "find": [:], "get": [:], "create": [:], "update": [:], "delete": [:], "count": [:], "addField": [:],
            ] as [String: Any]], master: true)
            #expect(closed.status == 200, "\(closed.text)")
            let created = try await Self.send("POST", "/classes/\(cls)", ["n": 3, "createdAt": ["__type": "Date", "iso": "2020-01-02T03:04:05.000Z"]])
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(created.json?["objectId"] as? String)
            let found = try await Self.send("GET", "/classes/\(cls)", nil)
            #expect((found.json?["results"] as? [[String: Any]])?.count == 2, "\(found.text)")
            let mine = try await PostsHTTP.send("GET", "/classes/\(cls)/\(id)", master: true)
            #expect(mine.json?["createdAt"] as? String == "2020-01-02T03:04:05.000Z", "\(mine.text)")
            #expect(try await Self.send("DELETE", "/classes/\(cls)/\(hidden)").status == 200)
        }

        @Test func setsWhatOnlyTheMasterKeySetsOnAUser() async throws {
            let user = try await AuthAPI.signUp("maint", email: true)
            let verified = try await Self.send("PUT", "/users/\(user.id)", ["emailVerified": true])
            #expect(verified.status == 200, "\(verified.text)")
            let read = try await PostsHTTP.send("GET", "/users/\(user.id)", master: true)
            #expect(read.json?["emailVerified"] as? Bool == true, "\(read.text)")
        }

        @Test func theAdministrationRoutesRefuseIt() async throws {
            let cls = PostsHTTP.uniqueClass("Maint")
            for (method, path) in [("GET", "/schemas"), ("POST", "/schemas/\(cls)"), ("GET", "/hooks/functions"),
                                   ("GET", "/serverInfo"), ("GET", "/scriptlog"), ("PUT", "/config"),
                                   ("POST", "/push"), ("GET", "/cloud_code/jobs"), ("DELETE", "/purge/\(cls)")] {
                let refused = try await Self.send(method, path, method == "GET" || method == "DELETE" ? nil : [:] as [String: Any])
                #expect(refused.status == 403, "\(method) \(path): \(refused.text)")
                #expect(refused.json?["error"] as? String == "unauthorized: master key is required", "\(method) \(path)")
            }
            #expect(try await Self.send("GET", "/config").status == 200)
        }

        @Test func cloudFunctionsSeeNoMasterKey() async throws {
            let answer = try await Self.send("POST", "/functions/whoami", [:] as [String: Any])
            #expect(answer.status == 200, "\(answer.text)")
            #expect((answer.json?["result"] as? [String: Any])?["master"] as? Bool == false, "\(answer.text)")
        }

        @Test func aWrongKeyIsNoKeyAtAll() async throws {
            let cls = PostsHTTP.uniqueClass("Maint")
            let hidden = try await PostsHTTP.create(cls, ["n": 1, "ACL": [:] as [String: Any]], master: true)
            let read = try await PostsHTTP.send("GET", "/classes/\(cls)/\(hidden)", headers: ["X-Parse-Maintenance-Key": "wrong"])
            #expect(read.status == 404, "\(read.text)")
        }
    }
}
