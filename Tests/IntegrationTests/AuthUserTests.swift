import Foundation
import Testing

extension IntegrationSuite {
    @Suite struct AuthUsers {
        @Test func signupAnswersExactlyObjectIdCreatedAtAndToken() async throws {
            let username = AuthAPI.uniqueName("signup")
            let reply = try await AuthAPI.send("POST", "/users", ["username": username, "password": "p", "email": "\(username)@x.io"])
            #expect(reply.status == 201)
            let json = try #require(reply.json)
            #expect(Set(json.keys) == ["objectId", "createdAt", "sessionToken"])
            let id = try #require(json["objectId"] as? String)
            #expect(reply.header("Location") == "\(TestStack.serverURL)/users/\(id)")
            let token = try #require(json["sessionToken"] as? String)
            #expect(token.range(of: "^r:[0-9a-f]{32}$", options: .regularExpression) != nil)

            let again = try await AuthAPI.send("POST", "/users", ["username": username.uppercased(), "password": "p"])
            #expect(again.status == 400)
            #expect(AuthAPI.error(again) == (202, "Account already exists for this username."))
            let sameEmail = try await AuthAPI.send("POST", "/users", ["username": username + "2", "password": "p",
                                                                      "email": "\(username.uppercased())@X.IO"])
            #expect(AuthAPI.error(sameEmail) == (203, "Account already exists for this email address."))
        }

        @Test func signupErrors() async throws {
            let missingName = try await AuthAPI.send("POST", "/users", ["password": "p"])
            #expect(missingName.status == 400)
            #expect(AuthAPI.error(missingName) == (200, "bad or missing username"))
            let missingPassword = try await AuthAPI.send("POST", "/users", ["username": AuthAPI.uniqueName("np")])
            #expect(AuthAPI.error(missingPassword) == (201, "password is required"))
            let badEmail = try await AuthAPI.send("POST", "/users", ["username": AuthAPI.uniqueName("be"), "password": "p", "email": "nope"])
            #expect(AuthAPI.error(badEmail) == (125, "Email address format is invalid."))
        }

        @Test func loginMeLogout() async throws {
            let user = try await AuthAPI.signUp("login", email: true, extra: ["nickname": "Al"])
            let login = try await AuthAPI.login(user.username, user.password)
            #expect(login.status == 200)
            let json = try #require(login.json)
            #expect(json["objectId"] as? String == user.id)
            #expect(json["nickname"] as? String == "Al")
            #expect(json["email"] as? String == "\(user.username)@example.com")
            #expect(json["password"] == nil)
            let token = try #require(json["sessionToken"] as? String)
            #expect(token != user.token)

            let byEmail = try await AuthAPI.send("POST", "/login", ["username": "\(user.username)@example.com", "password": user.password])
            #expect(byEmail.status == 200)
            let query = "username=\(user.username)&password=\(user.password)"
            let viaGet = try await HTTP.send("GET", "/login?\(query)", headers: HTTP.appHeaders)
            #expect(viaGet.status == 200)

            let me = try await AuthAPI.send("GET", "/users/me", token: token)
            #expect(me.status == 200)
            #expect(me.json?["sessionToken"] as? String == token)
            #expect(me.json?["username"] as? String == user.username)

            let logout = try await AuthAPI.send("POST", "/logout", token: token)
            #expect(logout.status == 200)
            #expect(logout.text == "{}")
            let after = try await AuthAPI.send("GET", "/users/me", token: token)
            #expect(after.status == 400)
            #expect(AuthAPI.error(after) == (209, "Invalid session token"))
            // The other sessions of the user live on.
            #expect(try await AuthAPI.send("GET", "/users/me", token: user.token).status == 200)
        }

        @Test func loginErrors() async throws {
            let user = try await AuthAPI.signUp("loginerr")
            let wrong = try await AuthAPI.login(user.username, "wrong")
            #expect(wrong.status == 404)
            #expect(wrong.text == #"{"code":101,"error":"Invalid username/password."}"#)
            let unknown = try await AuthAPI.login(AuthAPI.uniqueName("nobody"), "x")
            #expect(AuthAPI.error(unknown) == (101, "Invalid username/password."))
            let noName = try await AuthAPI.send("POST", "/login", ["password": "x"])
            #expect(noName.status == 400)
            #expect(AuthAPI.error(noName) == (200, "username/email is required."))
            let noPassword = try await AuthAPI.send("POST", "/login", ["username": user.username])
            #expect(AuthAPI.error(noPassword) == (201, "password is required."))
            let nonString = try await AuthAPI.send("POST", "/login", ["username": ["$ne": NSNull()], "password": "x"])
            #expect(AuthAPI.error(nonString) == (101, "Invalid username/password."))
            let nonStringPassword = try await AuthAPI.send("POST", "/login", ["username": user.username, "password": ["$ne": 1]])
            #expect(AuthAPI.error(nonStringPassword) == (101, "Invalid username/password."))
            // Query-string values are strings, never JSON operators.
            let injected = "username=%7B%22%24ne%22%3Anull%7D&password=%7B%22%24ne%22%3Anull%7D"
            let injection = try await HTTP.send("GET", "/login?\(injected)", headers: HTTP.appHeaders)
            #expect(injection.status == 404)
            #expect(AuthAPI.error(injection) == (101, "Invalid username/password."))
            let bogus = try await AuthAPI.send("GET", "/users/me", token: "r:bogus")
            #expect(bogus.status == 400)
            #expect(bogus.text == #"{"code":209,"error":"Invalid session token"}"#)
            let noToken = try await AuthAPI.send("GET", "/users/me")
            #expect(AuthAPI.error(noToken) == (209, "Invalid session token"))
        }

        @Test func badInputStoresNothing() async throws {
            let longName = String(repeating: "u", count: 5_000)
            let tooLong = try await AuthAPI.send("POST", "/users", ["username": longName, "password": "p"])
            #expect(AuthAPI.error(tooLong).0 == 142)
            let longPassword = try await AuthAPI.send("POST", "/users", ["username": AuthAPI.uniqueName("lp"),
                                                                          "password": String(repeating: "p", count: 100_000)])
            #expect(AuthAPI.error(longPassword).0 == 142)
            let name = AuthAPI.uniqueName("bad")
            for body: [String: Any] in [
                ["username": name, "password": "p", "bad-field": 1],
                ["username": name, "password": "p", "_hashed_password": "x"],
                ["username": name, "password": "p", "emailVerified": true],
                ["username": name, "password": 12],
                ["username": ["x"], "password": "p"],
            ] {
                let reply = try await AuthAPI.send("POST", "/users", body)
                #expect(reply.status == 400, "\(body): \(reply.text)")
            }
            let found = try await HTTP.send("GET", "/users?where=%7B%22username%22%3A%22\(name)%22%7D",
                                            headers: AuthAPI.headers(master: true))
            #expect(found.status == 200)
            #expect((found.json?["results"] as? [Any])?.isEmpty == true)
            let longLogin = try await AuthAPI.login(longName, String(repeating: "p", count: 100_000))
            #expect(AuthAPI.error(longLogin) == (101, "Invalid username/password."))
        }

        @Test func privateUsersByDefault() async throws {
            let alice = try await AuthAPI.signUp("alice", email: true)
            let bob = try await AuthAPI.signUp("bob", email: true)
            let own = try await AuthAPI.send("GET", "/users/\(alice.id)", token: alice.token)
            #expect(own.status == 200)
            #expect(own.json?["email"] as? String == "\(alice.username)@example.com")
            #expect(own.json?["sessionToken"] as? String == alice.token)
            let other = try await AuthAPI.send("GET", "/users/\(alice.id)", token: bob.token)
            #expect(other.status == 404)
            #expect(AuthAPI.error(other) == (101, "Object not found."))
            let anonymous = try await AuthAPI.send("GET", "/users/\(alice.id)")
            #expect(anonymous.status == 404)
            let master = try await AuthAPI.send("GET", "/users/\(alice.id)", master: true)
            #expect(master.json?["email"] as? String == "\(alice.username)@example.com")
            #expect(master.json?["sessionToken"] == nil)

            // Limited to these two: other tests make users of their own public meanwhile.
            let list = try await HTTP.send("GET", "/users?where=" + #"{"objectId":{"$in":["\#(alice.id)","\#(bob.id)"]}}"#
                .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!, headers: AuthAPI.headers(token: bob.token))
            let ids = (list.json?["results"] as? [[String: Any]])?.compactMap { $0["objectId"] as? String }
            #expect(ids == [bob.id])
            let classes = try await AuthAPI.send("GET", "/classes/_User/\(bob.id)", token: bob.token)
            #expect(classes.status == 200)

            // Made public by its owner: visible to others, without the email.
            _ = try await AuthAPI.send("PUT", "/users/\(alice.id)", ["ACL": ["*": ["read": true]]], token: alice.token)
            let now = try await AuthAPI.send("GET", "/users/\(alice.id)", token: bob.token)
            #expect(now.status == 200)
            #expect(now.json?["email"] == nil)
            #expect(now.json?["sessionToken"] == nil)
            let byName = try await HTTP.send("GET", "/users?where=%7B%22username%22%3A%22\(alice.username)%22%7D&count=1",
                                             headers: AuthAPI.headers(token: bob.token))
            #expect(byName.json?["count"] as? Int == 1)
            let operatorQuery = try await HTTP.send("GET", "/users?where=%7B%22username%22%3A%7B%22%24regex%22%3A%22%5Ealice_%22%7D%7D",
                                                    headers: AuthAPI.headers(token: bob.token))
            let matched = (operatorQuery.json?["results"] as? [[String: Any]])?.compactMap { $0["objectId"] as? String }
            #expect(matched?.contains(alice.id) == true)
            #expect(matched?.contains(bob.id) == false)
            let unknownParameter = try await HTTP.send("GET", "/users?foo=1", headers: AuthAPI.headers(token: bob.token))
            #expect(AuthAPI.error(unknownParameter) == (102, "Invalid parameter for query: foo"))
        }

        @Test func updateAndDeleteRules() async throws {
            let alice = try await AuthAPI.signUp("upd")
            let bob = try await AuthAPI.signUp("upd")
            let anonymous = try await AuthAPI.send("PUT", "/users/\(alice.id)", ["nickname": "x"])
            #expect(AuthAPI.error(anonymous) == (206, "Cannot modify user \(alice.id)."))
            let other = try await AuthAPI.send("PUT", "/users/\(alice.id)", ["nickname": "x"], token: bob.token)
            #expect(AuthAPI.error(other) == (206, "Insufficient auth."))
            let own = try await AuthAPI.send("PUT", "/users/\(alice.id)", ["nickname": "Al"], token: alice.token)
            #expect(own.status == 200)
            #expect(own.json?["updatedAt"] is String)
            let taken = try await AuthAPI.send("PUT", "/users/\(alice.id)", ["username": bob.username.uppercased()], token: alice.token)
            #expect(AuthAPI.error(taken).0 == 202)

            // A new password ends every session and answers a fresh token.
            let second = try #require(try await AuthAPI.login(alice.username, alice.password).json?["sessionToken"] as? String)
            let change = try await AuthAPI.send("PUT", "/users/\(alice.id)", ["password": "new-pass"], token: alice.token)
            #expect(change.status == 200)
            let fresh = try #require(change.json?["sessionToken"] as? String)
            #expect(try await AuthAPI.send("GET", "/users/me", token: alice.token).status == 400)
            #expect(try await AuthAPI.send("GET", "/users/me", token: second).status == 400)
            #expect(try await AuthAPI.send("GET", "/users/me", token: fresh).status == 200)
            #expect(try await AuthAPI.login(alice.username, "new-pass").status == 200)
            #expect(try await AuthAPI.login(alice.username, alice.password).status == 404)

            let deleteAnonymous = try await AuthAPI.send("DELETE", "/users/\(alice.id)")
            #expect(AuthAPI.error(deleteAnonymous) == (206, "Insufficient auth to delete user"))
            let deleteOther = try await AuthAPI.send("DELETE", "/users/\(alice.id)", token: bob.token)
            #expect(AuthAPI.error(deleteOther) == (206, "Insufficient auth."))
            let deleteOwn = try await AuthAPI.send("DELETE", "/users/\(alice.id)", token: fresh)
            #expect(deleteOwn.status == 200)
            #expect(try await AuthAPI.login(alice.username, "new-pass").status == 404)
            #expect(try await AuthAPI.send("GET", "/users/me", token: fresh).status == 400)
            // parse-server keeps a deleted user's sessions: an SDK still holding the token goes on working with it
            // (the Parse PHP SDK's suite signs the next user up with it).
            let leftOver = try await AuthAPI.send("GET", "/sessions/me", token: fresh)
            #expect(leftOver.status == 200)
            #expect((leftOver.json?["user"] as? [String: Any])?["objectId"] as? String == alice.id)
            let next = try await AuthAPI.send("POST", "/users", ["username": "after-\(alice.username)", "password": "p1"],
                                              token: fresh)
            #expect(next.status == 201)
        }

        /// parse-server checks the e-mail configuration before the request's address.
        @Test func passwordResetWithoutEmailAdapter() async throws {
            let notConfigured = (1, "An appName, publicServerURL, and emailAdapter are required for password reset and email verification functionality.")
            for path in ["/requestPasswordReset", "/verificationEmailRequest"] {
                for body: [String: Any] in [[:], ["email": 5], ["email": "a@b.c"]] {
                    let reply = try await AuthAPI.send("POST", path, body)
                    #expect(reply.status == 500)
                    #expect(AuthAPI.error(reply) == notConfigured)
                }
            }
        }

        @Test func verifyPasswordAndLoginAs() async throws {
            let user = try await AuthAPI.signUp("verify")
            let verified = try await AuthAPI.send("POST", "/verifyPassword", ["username": user.username, "password": user.password])
            #expect(verified.status == 200)
            #expect(verified.json?["sessionToken"] == nil)
            let notMaster = try await AuthAPI.send("POST", "/loginAs", ["userId": user.id], token: user.token)
            #expect(AuthAPI.error(notMaster) == (119, "master key is required"))
            let asMaster = try await AuthAPI.send("POST", "/loginAs", ["userId": user.id], master: true)
            let token = try #require(asMaster.json?["sessionToken"] as? String)
            #expect(try await AuthAPI.send("GET", "/users/me", token: token).json?["objectId"] as? String == user.id)
        }

        @Test func bcryptHashFromAnotherImplementationLogsIn() async throws {
            let user = try await AuthAPI.signUp("bcrypt")
            // "correct horse battery staple", hashed by Python's bcrypt 5.0.0 ($2a$ and the $2y$ form).
            for hash in ["$2a$10$i.KhL6KMFZwL2SXyV6vXA.aZKxYsM0PmdcSTI3SlKv6SqEqGkE/Ae",
                         "$2y$10$VrT9wR4WQtqEDcWA/n3oIeiFS1.XF6tMYdVovjpCDbZPzpKfQ0Da6"] {
                try AuthAPI.authDatabase("UPDATE users SET password_hash = '\(hash)' WHERE id = '\(user.id)'")
                #expect(try await AuthAPI.login(user.username, "correct horse battery staple").status == 200)
                #expect(try await AuthAPI.login(user.username, "correct horse battery stapler").status == 404)
            }
        }

        @Test func repeatedFailuresLockTheAccount() async throws {
            let user = try await AuthAPI.signUp("lock")
            for _ in 1...5 {
                let reply = try await AuthAPI.login(user.username, "wrong")
                #expect(AuthAPI.error(reply) == (101, "Invalid username/password."))
            }
            let locked = try await AuthAPI.login(user.username, user.password)
            #expect(locked.status == 404)
            #expect(AuthAPI.error(locked) == (101, "Your account is locked due to multiple failed login attempts. Please try again after 5 minute(s)"))
            // Another user is not affected.
            let other = try await AuthAPI.signUp("lock")
            #expect(try await AuthAPI.login(other.username, other.password).status == 200)
        }
    }
}
