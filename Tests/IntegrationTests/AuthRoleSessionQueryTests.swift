import Foundation
import Testing

extension IntegrationSuite {
    /// `/roles` and `/sessions` queries with the operators of class queries.
    @Suite struct AuthRoleSessionQueries {
        private static func createRole(_ name: String, acl: [String: Any], fields: [String: Any] = [:],
                                       users: [String] = [], roles: [String] = []) async throws -> String {
            var body: [String: Any] = ["name": name, "ACL": acl]
            body.merge(fields) { $1 }
            if !users.isEmpty { body["users"] = ["__op": "AddRelation", "objects": users.map { AuthQuery.pointer("_User", $0) }] }
            if !roles.isEmpty { body["roles"] = ["__op": "AddRelation", "objects": roles.map { AuthQuery.pointer("_Role", $0) }] }
            let reply = try await AuthAPI.send("POST", "/roles", body, master: true)
            guard reply.status == 201, let id = reply.json?["objectId"] as? String else {
                throw AuthTestError(description: "role creation failed: \(reply.text)")
            }
            return id
        }

        @Test func roleQueries() async throws {
            let member = try await AuthAPI.signUp("rolemember")
            let suffix = UUID().uuidString.prefix(6)
            let prefix = "QR_\(suffix)_"
            let open: [String: Any] = ["*": ["read": true]]
            let r1 = try await Self.createRole(prefix + "1", acl: open, fields: ["rank": 1, "tags": ["x", "y"]], users: [member.id])
            let r2 = try await Self.createRole(prefix + "2", acl: open, fields: ["rank": 2, "tags": ["y"]], roles: [r1])
            let r3 = try await Self.createRole(prefix + "3", acl: open, fields: ["rank": 3])
            let hidden = try await Self.createRole(prefix + "4", acl: [:], fields: ["rank": 4])

            func ids(_ constraint: [String: Any], _ parameters: [String: Any] = ["order": "rank"],
                     as caller: AuthQuery.Caller = .user(member.token)) async throws -> [String] {
                var clause = constraint
                clause["name"] = clause["name"] ?? ["$regex": "^" + prefix]
                let reply = try await AuthQuery.find("roles", clause, parameters, as: caller)
                #expect(reply.status == 200, "\(constraint): \(reply.text)")
                return AuthQuery.ids(reply)
            }
            #expect(try await ids([:]) == [r1, r2, r3])
            #expect(try await ids([:], as: .master) == [r1, r2, r3, hidden])
            #expect(try await ids([:], as: .anonymous) == [r1, r2, r3])
            #expect(try await ids(["name": prefix + "2"]) == [r2])
            #expect(try await ids(["rank": ["$ne": 2]]) == [r1, r3])
            #expect(try await ids(["rank": ["$gt": 1, "$lte": 3]]) == [r2, r3])
            #expect(try await ids(["rank": ["$gte": 3]], as: .master) == [r3, hidden])
            #expect(try await ids(["rank": ["$in": [1, 3, 4]]]) == [r1, r3])
            #expect(try await ids(["rank": ["$nin": [1]]]) == [r2, r3])
            #expect(try await ids(["tags": "y"]) == [r1, r2])
            #expect(try await ids(["tags": ["$all": ["x", "y"]]]) == [r1])
            #expect(try await ids(["tags": ["$exists": false]]) == [r3])
            #expect(try await ids(["tags": ["$containedBy": ["y", "z"]]]) == [r2])
            #expect(try await ids(["$or": [["rank": 1], ["tags": ["$exists": false]]]]) == [r1, r3])
            #expect(try await ids(["$nor": [["rank": 1], ["tags": "x"]]]) == [r2, r3])
            #expect(try await ids([:], ["order": "-rank"]) == [r3, r2, r1])
            #expect(try await ids([:], ["order": "-name"]) == [r3, r2, r1])
            // The relations: roles a user is directly in, roles holding a role, a role's child roles.
            #expect(try await ids(["users": AuthQuery.pointer("_User", member.id)]) == [r1])
            #expect(try await ids(["roles": AuthQuery.pointer("_Role", r1)]) == [r2])
            #expect(try await ids(["users": ["$exists": true]]) == [r1])
            #expect(try await ids(["$relatedTo": ["object": AuthQuery.pointer("_Role", r2), "key": "roles"]]) == [r1])

            let projected = try await AuthQuery.find("roles", ["objectId": r1], ["keys": "name"], as: .master)
            let row = try #require(AuthQuery.results(projected).first)
            #expect(row["name"] as? String == prefix + "1")
            #expect(row["rank"] == nil && row["tags"] == nil)
            let counted = try await AuthQuery.find("roles", ["name": ["$regex": "^" + prefix]], ["count": 1, "limit": 0], as: .anonymous)
            #expect(counted.json?["count"] as? Int == 3)

            let bad = try await AuthQuery.find("roles", ["rank": ["$foo": 1]], as: .master)
            #expect(AuthAPI.error(bad) == (102, "Unsupported query operator: $foo"))
            let badRelated = try await AuthQuery.find("roles", ["$relatedTo": ["object": AuthQuery.pointer("_Role", r2), "key": "users"]],
                                                      as: .master)
            #expect(AuthAPI.error(badRelated) == (102, "improper usage of $relatedTo"))
        }

        @Test func sessionQueries() async throws {
            let alice = try await AuthAPI.signUp("sessq")
            let bob = try await AuthAPI.signUp("sessq")
            _ = try await AuthAPI.login(alice.username, alice.password)
            let created = try await AuthAPI.send("POST", "/sessions", ["installationId": "inst-q", "device": "phone", "rank": 5],
                                                 token: alice.token)
            #expect(created.status == 201, "\(created.text)")
            let phone = try #require(created.json?["objectId"] as? String)

            func ids(_ clause: [String: Any], _ parameters: [String: Any] = [:], as caller: AuthQuery.Caller) async throws -> [String] {
                let reply = try await AuthQuery.find("sessions", clause, parameters, as: caller)
                #expect(reply.status == 200, "\(clause): \(reply.text)")
                return AuthQuery.ids(reply)
            }
            let own = try await ids([:], as: .user(alice.token))
            #expect(own.count == 3)
            #expect(try await ids(["device": "phone"], as: .user(alice.token)) == [phone])
            #expect(try await ids(["installationId": ["$in": ["inst-q", "other"]]], as: .user(alice.token)) == [phone])
            #expect(try await ids(["rank": ["$gte": 5]], as: .user(alice.token)) == [phone])
            #expect(try await ids(["device": ["$exists": false]], as: .user(alice.token)).count == 2)
            #expect(try await ids(["device": ["$ne": "phone"]], as: .user(alice.token)).count == 2)
            #expect(try await ids(["$or": [["device": "phone"], ["installationId": "none"]]], as: .user(alice.token)) == [phone])
            #expect(try await ids(["createdWith.action": "create"], as: .user(alice.token)) == [phone])
            #expect(try await ids(["expiresAt": ["$gt": AuthQuery.date(Date())]], as: .user(alice.token)).count == 3)
            #expect(try await ids([:], ["order": "-createdAt", "limit": 1], as: .user(alice.token)) == [phone])
            // Only one's own sessions, whatever the query says; all of them with the master key.
            #expect(try await ids(["user": AuthQuery.pointer("_User", alice.id)], as: .user(bob.token)).isEmpty)
            #expect(try await ids(["device": "phone"], as: .user(bob.token)).isEmpty)
            #expect(try await ids(["user": AuthQuery.pointer("_User", alice.id)], as: .master).count == 3)
            #expect(try await ids(["user": ["$in": [AuthQuery.pointer("_User", alice.id), AuthQuery.pointer("_User", bob.id)]]],
                                  as: .master).count == 4)

            // The token is stored as a digest: equality only.
            let byToken = try await AuthQuery.find("sessions", ["sessionToken": alice.token], as: .user(alice.token))
            #expect(AuthQuery.results(byToken).compactMap { $0["sessionToken"] as? String } == [alice.token])
            let tokenRegex = try await AuthQuery.find("sessions", ["sessionToken": ["$regex": "^r:"]], as: .user(alice.token))
            #expect(AuthAPI.error(tokenRegex).0 == 102)
            let nested = try await AuthQuery.find("sessions", ["$or": [["sessionToken": alice.token]]], as: .user(alice.token))
            #expect(AuthAPI.error(nested).0 == 102)
            let keys = try await AuthQuery.find("sessions", ["device": "phone"], ["keys": "device"], as: .user(alice.token))
            let row = try #require(AuthQuery.results(keys).first)
            #expect(row["device"] as? String == "phone")
            #expect(row["sessionToken"] == nil && row["user"] == nil)
            let anonymous = try await AuthQuery.find("sessions", ["device": "phone"], as: .anonymous)
            #expect(AuthAPI.error(anonymous).0 == 209)
        }
    }
}
