import Foundation
import Testing

extension IntegrationSuite {
    /// `authData`: anonymous users, logging in with a provider, linking and unlinking, and who sees it.
    @Suite struct AuthDataLogins {
        static func anonymous(_ id: String = UUID().uuidString.lowercased()) -> [String: Any] {
            ["authData": ["anonymous": ["id": id]]]
        }

        @Test func anonymousSignUpThenLogInAgainWithTheSameId() async throws {
            let id = UUID().uuidString.lowercased()
            let first = try await AuthAPI.send("POST", "/users", Self.anonymous(id))
            #expect(first.status == 201, "\(first.text)")
            let json = try #require(first.json)
            #expect(Set(json.keys) == ["objectId", "createdAt", "sessionToken", "username"])
            let userId = try #require(json["objectId"] as? String)
            let username = try #require(json["username"] as? String)
            #expect(username.range(of: "^[A-Za-z0-9]{25}$", options: .regularExpression) != nil)
            #expect(first.header("Location") == "\(TestStack.serverURL)/users/\(userId)")
            let token = try #require(json["sessionToken"] as? String)

            let me = try await AuthAPI.send("GET", "/users/me", token: token)
            #expect(me.status == 200)
            #expect((me.json?["authData"] as? [String: Any])?["anonymous"] as? [String: String] == ["id": id])
            let session = try await AuthAPI.send("GET", "/sessions/me", token: token)
            #expect(session.json?["createdWith"] as? [String: String] == ["action": "login", "authProvider": "anonymous"])

            let again = try await AuthAPI.send("POST", "/users", Self.anonymous(id))
            #expect(again.status == 200)
            #expect(again.json?["objectId"] as? String == userId)
            #expect(again.json?["username"] as? String == username)
            let secondToken = try #require(again.json?["sessionToken"] as? String)
            #expect(secondToken != token)
            #expect((again.json?["authData"] as? [String: Any])?["anonymous"] != nil)
            #expect(try await AuthAPI.send("GET", "/users/me", token: secondToken).json?["objectId"] as? String == userId)

            // An anonymous user works like any other: it may create objects it owns.
            let className = PostsHTTP.uniqueClass("AnonNote")
            let acl = [userId: ["read": true, "write": true]]
            let created = try await HTTP.send("POST", "/classes/\(className)", headers: AuthAPI.headers(token: token),
                                              body: AuthAPI.json(["text": "hi", "ACL": acl]))
            #expect(created.status == 201, "\(created.text)")
        }

        @Test func upgradingAnAnonymousUserKeepsItsIdAndDropsTheLink() async throws {
            let signup = try await AuthAPI.send("POST", "/users", Self.anonymous())
            let userId = try #require(signup.json?["objectId"] as? String)
            let token = try #require(signup.json?["sessionToken"] as? String)
            let username = AuthAPI.uniqueName("upgraded")
            // What the SDKs send when an anonymous user signs up: a name, a password and the anonymous link removed.
            let upgrade = try await AuthAPI.send("PUT", "/users/\(userId)",
                                                 ["username": username, "password": "pw-1", "authData": ["anonymous": NSNull()]],
                                                 token: token)
            #expect(upgrade.status == 200, "\(upgrade.text)")
            let newToken = try #require(upgrade.json?["sessionToken"] as? String)
            let login = try await AuthAPI.login(username, "pw-1")
            #expect(login.status == 200)
            #expect(login.json?["objectId"] as? String == userId)
            #expect(login.json?["authData"] == nil)
            let me = try await AuthAPI.send("GET", "/users/me", token: newToken)
            #expect(me.json?["authData"] == nil)
            #expect(me.json?["username"] as? String == username)
        }

        @Test func unlinkingTheOnlyWayToLogInIsRefused() async throws {
            let signup = try await AuthAPI.send("POST", "/users", Self.anonymous())
            let userId = try #require(signup.json?["objectId"] as? String)
            let token = try #require(signup.json?["sessionToken"] as? String)
            let unlink = try await AuthAPI.send("PUT", "/users/\(userId)", ["authData": ["anonymous": NSNull()]], token: token)
            #expect(AuthAPI.error(unlink) == (142, "A user without a password must keep at least one linked authentication provider."))
            #expect((try await AuthAPI.send("GET", "/users/me", token: token).json?["authData"] as? [String: Any])?["anonymous"] != nil)
            // The master key may (parse-server's SDKs clear the anonymous link of an upgraded user that way).
            let master = try await AuthAPI.send("PUT", "/users/\(userId)", ["authData": ["anonymous": NSNull()]], master: true)
            #expect(master.status == 200)
            #expect(try await AuthAPI.send("GET", "/users/\(userId)", master: true).json?["authData"] == nil)
        }

        @Test func linkingAProviderIdThatAnotherUserHasAnswers208() async throws {
            let id = UUID().uuidString.lowercased()
            let holder = try await AuthAPI.send("POST", "/users", Self.anonymous(id))
            #expect(holder.status == 201)
            let other = try await AuthAPI.signUp("linker")
            let link = try await AuthAPI.send("PUT", "/users/\(other.id)", ["authData": ["anonymous": ["id": id]]], token: other.token)
            #expect(link.status == 400)
            #expect(AuthAPI.error(link) == (208, "this auth is already used"))

            // A fresh id links, shows to the user and the master key only, and unlinks with null.
            let fresh = UUID().uuidString.lowercased()
            let linked = try await AuthAPI.send("PUT", "/users/\(other.id)", ["authData": ["anonymous": ["id": fresh]]],
                                                token: other.token)
            #expect(linked.status == 200, "\(linked.text)")
            #expect(linked.json?["sessionToken"] == nil)
            let viaProvider = try await AuthAPI.send("POST", "/users", Self.anonymous(fresh))
            #expect(viaProvider.status == 200)
            #expect(viaProvider.json?["objectId"] as? String == other.id)
            #expect(viaProvider.json?["username"] as? String == other.username)

            let stranger = try await AuthAPI.signUp("stranger")
            let opened = try await AuthAPI.send("PUT", "/users/\(other.id)",
                                                ["ACL": ["*": ["read": true], other.id: ["read": true, "write": true]]], token: other.token)
            #expect(opened.status == 200)
            let seen = try await AuthAPI.send("GET", "/users/\(other.id)", token: stranger.token)
            #expect(seen.status == 200)
            #expect(seen.json?["authData"] == nil)
            let listed = try await AuthAPI.send("GET", "/users?where=%7B%22objectId%22%3A%22\(other.id)%22%7D", token: stranger.token)
            #expect(!listed.text.contains("authData") && !listed.text.contains(fresh))
            #expect((try await AuthAPI.send("GET", "/users/\(other.id)", master: true).json?["authData"] as? [String: Any]) != nil)

            let unlink = try await AuthAPI.send("PUT", "/users/\(other.id)", ["authData": ["anonymous": NSNull()]], token: other.token)
            #expect(unlink.status == 200, "\(unlink.text)")
            #expect(try await AuthAPI.send("GET", "/users/me", token: other.token).json?["authData"] == nil)
            // Unlinked, the id is free again: it signs up a new user.
            let reuse = try await AuthAPI.send("POST", "/users", Self.anonymous(fresh))
            #expect(reuse.status == 201)
            #expect(reuse.json?["objectId"] as? String != other.id)
        }

        @Test func unknownProvidersAndShapesAreUnsupported() async throws {
            let unsupported = (252, "This authentication method is unsupported.")
            for body: [String: Any] in [["authData": ["myoauth": ["id": "1", "access_token": "x"]]],
                                        ["authData": NSNull()], ["authData": "anonymous"],
                                        ["authData": ["anonymous": ["token": "no id"]]]] {
                let reply = try await AuthAPI.send("POST", "/users", body)
                #expect(reply.status == 400)
                #expect(AuthAPI.error(reply) == unsupported, "\(body): \(reply.text)")
            }
            let user = try await AuthAPI.signUp("unknownlink")
            let link = try await AuthAPI.send("PUT", "/users/\(user.id)", ["authData": ["twitter": ["id": "1", "auth_token": "x"]]],
                                              token: user.token)
            #expect(AuthAPI.error(link) == unsupported)
            // `{}` is no authData at all: the ordinary signup rules apply.
            let empty = try await AuthAPI.send("POST", "/users", ["authData": [String: Any]()])
            #expect(AuthAPI.error(empty) == (200, "bad or missing username"))
        }

        @Test func anonymousUsersCanBeSwitchedOff() async throws {
            let existing = UUID().uuidString.lowercased()
            #expect(try await AuthAPI.send("POST", "/users", Self.anonymous(existing)).status == 201)
            try TestStack.control(["stop-service", "auth"])
            try TestStack.control(["start-service", "auth"], settings: ["PARSE_SERVER_ENABLE_ANON_USERS": "false"])
            try await TestStack.run({
                for id in [UUID().uuidString.lowercased(), existing] {
                    let reply = try await AuthAPI.send("POST", "/users", Self.anonymous(id))
                    #expect(AuthAPI.error(reply) == (252, "This authentication method is unsupported."))
                }
            }, thenAlways: {
                try TestStack.control(["stop-service", "auth"])
                try TestStack.control(["start-service", "auth"])
            })
        }

        @Test func upgradeToRevocableSessionGivesANewSession() async throws {
            let user = try await AuthAPI.signUp("upgrade")
            let reply = try await AuthAPI.send("POST", "/upgradeToRevocableSession", token: user.token)
            #expect(reply.status == 200)
            let json = try #require(reply.json)
            #expect(Set(json.keys) == ["sessionToken", "user", "createdWith", "expiresAt"])
            #expect(json["createdWith"] as? [String: String] == ["action": "upgrade"])
            #expect(json["user"] as? [String: String] == ["__type": "Pointer", "className": "_User", "objectId": user.id])
            #expect((json["expiresAt"] as? [String: String])?["__type"] == "Date")
            let token = try #require(json["sessionToken"] as? String)
            #expect(token != user.token && token.hasPrefix("r:"))
            #expect(try await AuthAPI.send("GET", "/users/me", token: token).json?["objectId"] as? String == user.id)
            #expect(try await AuthAPI.send("GET", "/users/me", token: user.token).status == 200)
            let anonymous = try await AuthAPI.send("POST", "/upgradeToRevocableSession")
            #expect(anonymous.status == 404)
            #expect(AuthAPI.error(anonymous) == (101, "invalid session"))
        }
    }
}
