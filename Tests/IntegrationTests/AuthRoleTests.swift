import Foundation
import Testing

extension IntegrationSuite {
    @Suite struct AuthRoles {
        private func pointer(_ className: String, _ id: String) -> [String: Any] {
            ["__type": "Pointer", "className": className, "objectId": id]
        }

        private func createRole(_ name: String, acl: [String: Any], users: [String] = [], roles: [String] = [],
                                token: String? = nil, master: Bool = true) async throws -> String {
            var body: [String: Any] = ["name": name, "ACL": acl]
            if !users.isEmpty { body["users"] = ["__op": "AddRelation", "objects": users.map { pointer("_User", $0) }] }
            if !roles.isEmpty { body["roles"] = ["__op": "AddRelation", "objects": roles.map { pointer("_Role", $0) }] }
            let reply = try await AuthAPI.send("POST", "/roles", body, token: token, master: master)
            guard reply.status == 201, let id = reply.json?["objectId"] as? String else {
                throw AuthTestError(description: "role creation failed: \(reply.text)")
            }
            return id
        }

        @Test func nestedRolesGrantAccess() async throws {
            let member = try await AuthAPI.signUp("member")
            let outsider = try await AuthAPI.signUp("outsider")
            let suffix = UUID().uuidString.prefix(6)
            let publicRead: [String: Any] = ["*": ["read": true]]
            let editors = try await createRole("Editors_\(suffix)", acl: publicRead, users: [member.id])
            let staff = try await createRole("Staff_\(suffix)", acl: publicRead, roles: [editors])
            let everyone = try await createRole("Everyone_\(suffix)", acl: publicRead, roles: [staff])
            // Only holders of the outermost role may read this one: the member does through two levels of nesting.
            let secret = try await createRole("Secret_\(suffix)", acl: ["role:Everyone_\(suffix)": ["read": true]])
            _ = everyone

            let asMember = try await AuthAPI.send("GET", "/roles/\(secret)", token: member.token)
            #expect(asMember.status == 200)
            #expect(asMember.json?["name"] as? String == "Secret_\(suffix)")
            #expect((asMember.json?["users"] as? [String: Any])?["__type"] as? String == "Relation")
            #expect(try await AuthAPI.send("GET", "/roles/\(secret)", token: outsider.token).status == 404)
            #expect(try await AuthAPI.send("GET", "/roles/\(secret)").status == 404)
            #expect(try await AuthAPI.send("GET", "/roles/\(secret)", master: true).status == 200)
            #expect(try await AuthAPI.send("GET", "/classes/_Role/\(secret)", token: member.token).status == 200)

            let members = try await HTTP.send(
                "GET", "/users?where=" + #"{"$relatedTo":{"object":{"__type":"Pointer","className":"_Role","objectId":"\#(editors)"},"key":"users"}}"#
                    .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
                headers: AuthAPI.headers(master: true))
            #expect((members.json?["results"] as? [[String: Any]])?.compactMap { $0["objectId"] as? String } == [member.id])
            let byName = try await HTTP.send("GET", "/roles?where=%7B%22name%22%3A%22Staff_\(suffix)%22%7D", headers: AuthAPI.headers())
            #expect((byName.json?["results"] as? [[String: Any]])?.first?["objectId"] as? String == staff)

            // Removing the member from the inner role takes the outer ones away too, for the session the gateway
            // has cached as well: `role.changed` empties the gateways' session caches.
            let removal = try await AuthAPI.send("PUT", "/roles/\(editors)",
                                                 ["users": ["__op": "RemoveRelation", "objects": [pointer("_User", member.id)]]],
                                                 master: true)
            #expect(removal.status == 200)
            let changed = ContinuousClock.now
            var status = 200
            while status == 200 && ContinuousClock.now - changed < .seconds(3) {
                status = try await AuthAPI.send("GET", "/roles/\(secret)", token: member.token).status
                if status == 200 { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(status == 404)
            #expect(ContinuousClock.now - changed < .seconds(2), "took longer than the event should")
        }

        @Test func roleErrors() async throws {
            let user = try await AuthAPI.signUp("roleerr")
            let noName = try await AuthAPI.send("POST", "/roles", ["ACL": [:] as [String: Any]], master: true)
            #expect(AuthAPI.error(noName) == (111, "name is required."))
            let noACL = try await AuthAPI.send("POST", "/roles", ["name": "NoACL"], master: true)
            #expect(AuthAPI.error(noACL) == (111, "ACL is required."))
            let badName = try await AuthAPI.send("POST", "/roles", ["name": "bad/name", "ACL": [:] as [String: Any]], master: true)
            #expect(AuthAPI.error(badName).0 == 139)
            let name = "Dup_\(UUID().uuidString.prefix(6))"
            let id = try await createRole(name, acl: ["*": ["read": true]], token: user.token, master: false)
            let duplicate = try await AuthAPI.send("POST", "/roles", ["name": name, "ACL": [:] as [String: Any]], master: true)
            #expect(AuthAPI.error(duplicate) == (137, "A duplicate value for a field with unique values was provided"))
            let rename = try await AuthAPI.send("PUT", "/roles/\(id)", ["name": "Other"], master: true)
            #expect(AuthAPI.error(rename).0 == 136)
            // Public read but no public write: nobody but the master key may change or delete it.
            let change = try await AuthAPI.send("PUT", "/roles/\(id)", ["note": "x"], token: user.token)
            #expect(change.status == 404)
            let delete = try await AuthAPI.send("DELETE", "/roles/\(id)", token: user.token)
            #expect(AuthAPI.error(delete) == (101, "Object not found for delete."))
            #expect(try await AuthAPI.send("DELETE", "/roles/\(id)", master: true).status == 200)
        }

        /// Who sees what across users, sessions and roles: anonymous, the user, another user, a role member,
        /// the master key.
        @Test func identityMatrix() async throws {
            let owner = try await AuthAPI.signUp("owner", email: true)
            let other = try await AuthAPI.signUp("other")
            let member = try await AuthAPI.signUp("rolemember")
            let suffix = UUID().uuidString.prefix(6)
            let role = try await createRole("Readers_\(suffix)", acl: ["role:Readers_\(suffix)": ["read": true]], users: [member.id])
            let ownerSession = try #require(try await AuthAPI.send("GET", "/sessions/me", token: owner.token).json?["objectId"] as? String)

            struct Case { let path: String; let expected: [String: Int] }
            let cases = [
                Case(path: "/users/\(owner.id)", expected: ["anonymous": 404, "owner": 200, "other": 404, "member": 404, "master": 200]),
                Case(path: "/sessions/\(ownerSession)", expected: ["anonymous": 400, "owner": 200, "other": 404, "member": 404, "master": 200]),
                Case(path: "/roles/\(role)", expected: ["anonymous": 404, "owner": 404, "other": 404, "member": 200, "master": 200]),
            ]
            let callers: [(String, String?, Bool)] = [("anonymous", nil, false), ("owner", owner.token, false),
                                                      ("other", other.token, false), ("member", member.token, false),
                                                      ("master", nil, true)]
            for testCase in cases {
                for (name, token, master) in callers {
                    let reply = try await AuthAPI.send("GET", testCase.path, token: token, master: master)
                    #expect(reply.status == testCase.expected[name], "\(name) GET \(testCase.path): \(reply.text)")
                    if reply.status == 200 && testCase.path.hasPrefix("/users") && name != "owner" && name != "master" {
                        Issue.record("\(name) saw \(testCase.path)")
                    }
                    #expect(!reply.text.contains(#""password":"#) && !reply.text.contains("hashed"),
                            "\(name) GET \(testCase.path) leaks a password field")
                }
            }
            for (name, token, master) in callers {
                let roles = try await HTTP.send("GET", "/roles?where=%7B%22name%22%3A%22Readers_\(suffix)%22%7D",
                                                headers: AuthAPI.headers(token: token, master: master))
                let listed = (roles.json?["results"] as? [Any])?.count
                #expect(listed == (name == "member" || name == "master" ? 1 : 0), "\(name) lists the role: \(roles.text)")
                let sessions = try await AuthAPI.send("GET", "/sessions", token: token, master: master)
                if name == "anonymous" {
                    #expect(AuthAPI.error(sessions).0 == 209)
                } else if !master {
                    let owners = Set((sessions.json?["results"] as? [[String: Any]] ?? [])
                        .compactMap { ($0["user"] as? [String: Any])?["objectId"] as? String })
                    #expect(owners.count == 1, "\(name) sees sessions of \(owners)")
                    #expect(!owners.contains(owner.id) || name == "owner")
                }
            }
            for (name, token, master) in callers where name != "owner" {
                let list = try await AuthAPI.send("GET", "/users", token: token, master: master)
                let text = list.text
                #expect(master || !text.contains(owner.id), "\(name) lists the owner")
                #expect(master || !text.contains("@example.com"), "\(name) sees an email")
                #expect(!text.contains(owner.token), "\(name) sees the owner's token")
            }
        }
    }
}
