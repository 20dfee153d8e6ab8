import Foundation
import Testing

extension IntegrationSuite {
    /// Read-your-writes over the gateways' session caches: once a logout or a role change is answered through one
    /// gateway, a second gateway that cached the session (for ten minutes here) answers with the change at once.
    /// Each test runs 200 rounds, with a second auth process beside the stack's so either may answer the change.
    /// One at a time: a role change empties every gateway's cache, which the other tests check is in use.
    @Suite(.serialized) struct SessionCoherence {
        /// The second gateway's address, its port next to the stack's.
        private static func withSecondGateway(_ body: (String) async throws -> Void) async throws {
            let port = try #require(Int(TestStack.environment["PORT"] ?? ""), "PORT is needed to start a second gateway")
            try await ServiceReplica.with("auth") {
                try await ServiceReplica.with("gateway", settings: ["PORT": String(port + 7),
                                                                    "PARSE_SESSION_CACHE_TTL_MS": "600000"],
                                              readyLine: "listening") {
                    let second = TestStack.serverURL.replacingOccurrences(of: ":\(port)/", with: ":\(port + 7)/")
                    // Its cache is used once its first lease is granted, shortly after it listens.
                    #expect(try await cachesSessionsWithin(.seconds(10), second), "the second gateway does not cache")
                    try await body(second)
                    // Without this the rounds could pass with no cache at all. (A machine too busy for the lease's
                    // renewals empties the cache until the next one: hence the wait here too.)
                    #expect(try await cachesSessionsWithin(.seconds(10), second), "the second gateway stopped caching")
                }
            }
        }

        private static func cachesSessionsWithin(_ time: Duration, _ gateway: String) async throws -> Bool {
            let deadline = ContinuousClock.now + time
            while ContinuousClock.now < deadline {
                if try await cachesSessions(gateway) { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        /// Whether `gateway` answers from its cache: a session it resolved still answers there after it was removed
        /// from the database behind its back (no eviction).
        private static func cachesSessions(_ gateway: String) async throws -> Bool {
            let user = try await AuthAPI.signUp("cached")
            guard try await AuthAPI.send("GET", "/users/me", token: user.token, base: gateway).status == 200 else {
                return false
            }
            try AuthAPI.authDatabase("DELETE FROM sessions WHERE user_id = '\(user.id)'")
            return try await AuthAPI.send("GET", "/users/me", token: user.token, base: gateway).status == 200
        }

        private static func pointer(_ className: String, _ id: String) -> [String: Any] {
            ["__type": "Pointer", "className": className, "objectId": id]
        }

        @Test func aLogoutEndsTheSessionOnEveryGatewayBeforeItIsAnswered() async throws {
            try await Self.withSecondGateway { second in
                let user = try await AuthAPI.signUp("twogw")
                var misses: [String] = []
                for round in 0..<200 {
                    let created = try await AuthAPI.send("POST", "/sessions", [:], token: user.token)
                    let token = try #require(created.json?["sessionToken"] as? String, "session: \(created.text)")
                    let before = try await AuthAPI.send("GET", "/users/me", token: token, base: second)
                    if before.status != 200 { misses.append("round \(round) before: \(before.status) \(before.text)") }
                    // Alternately through the first gateway and through the second.
                    let logout = try await AuthAPI.send("POST", "/logout", token: token,
                                                        base: round.isMultiple(of: 2) ? TestStack.serverURL : second)
                    if logout.status != 200 { misses.append("round \(round) logout: \(logout.status) \(logout.text)") }
                    let after = try await AuthAPI.send("GET", "/users/me", token: token, base: second)
                    if AuthAPI.error(after).0 != 209 { misses.append("round \(round) after: \(after.status) \(after.text)") }
                }
                #expect(misses.count == 0, "misses: \(misses.prefix(5))")
            }
        }

        /// A lease whose gateway never confirms (its queue has no consumer): the logout still succeeds, after the
        /// lease has run out, and auth has taken the lease back.
        @Test func aLeaseholderThatDoesNotConfirmDelaysTheAnswerUntilItsLeaseEnds() async throws {
            let user = try await AuthAPI.signUp("ghostgw")
            let ghost = "gateway.sessions.ghost-\(UUID().uuidString.lowercased())"
            try AuthAPI.authDatabase("""
                INSERT INTO session_cache_leases VALUES ('\(ghost)', clock_timestamp() + interval '1500 milliseconds')
                """)
            let started = ContinuousClock.now
            let logout = try await AuthAPI.send("POST", "/logout", token: user.token)
            let waited = ContinuousClock.now - started
            #expect(logout.status == 200, "\(logout.text)")
            // The answer may not come before the lease of a gateway that could still trust its cache has ended.
            #expect(waited >= .seconds(1), "answered after \(waited)")
            try AuthAPI.authDatabase("""
                DO $$ BEGIN IF EXISTS (SELECT 1 FROM session_cache_leases WHERE queue = '\(ghost)') THEN
                    RAISE EXCEPTION 'the lease was not taken back'; END IF; END $$
                """)
        }

        @Test func aRoleChangeAppliesOnEveryGatewayBeforeItIsAnswered() async throws {
            try await Self.withSecondGateway { second in
                let user = try await AuthAPI.signUp("rolegw")
                let roleName = "Members_\(UUID().uuidString.prefix(8))"
                let created = try await AuthAPI.send("POST", "/roles", ["name": roleName, "ACL": ["*": ["read": true]]],
                                                     master: true)
                let roleId = try #require(created.json?["objectId"] as? String, "role: \(created.text)")
                let cls = PostsHTTP.uniqueClass("MembersOnly")
                let object = try await PostsHTTP.create(cls, ["ACL": ["role:\(roleName)": ["read": true]]], master: true)
                let members = Self.pointer("_User", user.id)
                var misses: [String] = []
                for round in 0..<200 {
                    let added = try await AuthAPI.send("PUT", "/roles/\(roleId)",
                                                       ["users": ["__op": "AddRelation", "objects": [members]]], master: true)
                    if added.status != 200 { misses.append("round \(round) add: \(added.status) \(added.text)") }
                    let read = try await AuthAPI.send("GET", "/classes/\(cls)/\(object)", token: user.token, base: second)
                    if read.status != 200 { misses.append("round \(round) as a member: \(read.status) \(read.text)") }
                    let removed = try await AuthAPI.send("PUT", "/roles/\(roleId)",
                                                         ["users": ["__op": "RemoveRelation", "objects": [members]]],
                                                         master: true)
                    if removed.status != 200 { misses.append("round \(round) remove: \(removed.status) \(removed.text)") }
                    let refused = try await AuthAPI.send("GET", "/classes/\(cls)/\(object)", token: user.token, base: second)
                    if refused.status != 404 { misses.append("round \(round) as a non-member: \(refused.status) \(refused.text)") }
                }
                #expect(misses.count == 0, "misses: \(misses.prefix(5))")
            }
        }
    }
}
