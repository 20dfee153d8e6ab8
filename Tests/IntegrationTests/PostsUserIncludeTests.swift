import Foundation
import Testing

extension IntegrationSuite {
    /// `include=user` on wall posts: the users come from the auth service in one lookup per query, as each
    /// caller may read them: no secrets ever, the email only to the user themself and the master key, private
    /// users dropped for everybody else.
    @Suite struct PostsUserInclude {
        /// Every reply of one query, keyed by the post's author.
        private static func wall(_ tag: String, token: String? = nil, master: Bool = false)
            async throws -> (posts: [String: [String: Any]], requestId: String) {
            let requestId = UUID().uuidString.lowercased()
            var headers = AuthAPI.headers(token: token, master: master)
            headers["X-Parse-Request-Id"] = requestId
            let query = "where=" + #"{"tag":"\#(tag)"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                + "&include=user"
            let reply = try await HTTP.send("GET", "/classes/WallPost?\(query)", headers: headers)
            #expect(reply.status == 200, "\(reply.text)")
            let results = try #require(reply.json?["results"] as? [[String: Any]])
            var posts: [String: [String: Any]] = [:]
            for post in results { posts[try #require(post["author"] as? String)] = post }
            return (posts, requestId)
        }

        /// The auth service logs one line per `users.lookup.v1` it answers, with the request's id.
        private static func lookups(of requestId: String) throws -> Int {
            let log = try String(contentsOfFile: "\(TestStack.folder)/logs/auth.log", encoding: .utf8)
            return log.split(separator: "\n").filter {
                $0.contains(#""msg":"users looked up""#) && $0.contains(#""request.id":"\#(requestId)""#)
            }.count
        }

        private static func expectNoSecrets(_ user: [String: Any]) {
            for key in ["sessionToken", "password", "_hashed_password", "authData", "passwordHash"] {
                #expect(user[key] == nil, "included user carries \(key)")
            }
        }

        @Test func includedUsersFollowTheReadersRights() async throws {
            let ann = try await AuthAPI.signUp("wallann", email: true)
            let bob = try await AuthAPI.signUp("wallbob", email: true)
            // Users are private by default (parse-server's enforcePrivateUsers); Ann makes herself public.
            let publicity = try await AuthAPI.send("PUT", "/users/\(ann.id)", ["ACL": ["*": ["read": true]]], token: ann.token)
            #expect(publicity.status == 200, "\(publicity.text)")

            let tag = AuthAPI.uniqueName("tag")
            for (user, count) in [(ann, 2), (bob, 1)] {
                for index in 0..<count {
                    let created = try await AuthAPI.send("POST", "/classes/WallPost", [
                        "tag": tag, "author": user.username, "text": "post \(index)",
                        "user": ["__type": "Pointer", "className": "_User", "objectId": user.id],
                    ], token: user.token)
                    #expect(created.status == 201, "\(created.text)")
                }
            }

            // Ann reads her own user with her email, and not Bob, whose user is private.
            let asAnn = try await Self.wall(tag, token: ann.token)
            let annSelf = try #require(asAnn.posts[ann.username]?["user"] as? [String: Any])
            #expect(annSelf["__type"] as? String == "Object")
            #expect(annSelf["className"] as? String == "_User")
            #expect(annSelf["objectId"] as? String == ann.id)
            #expect(annSelf["username"] as? String == ann.username)
            #expect(annSelf["email"] as? String == "\(ann.username)@example.com")
            #expect(annSelf["createdAt"] is String)
            Self.expectNoSecrets(annSelf)
            #expect(asAnn.posts[bob.username] != nil)
            #expect(asAnn.posts[bob.username]?["user"] == nil)

            // Bob reads Ann without her email, and himself with his.
            let asBob = try await Self.wall(tag, token: bob.token)
            let annForBob = try #require(asBob.posts[ann.username]?["user"] as? [String: Any])
            #expect(annForBob["username"] as? String == ann.username)
            #expect(annForBob["email"] == nil)
            Self.expectNoSecrets(annForBob)
            let bobSelf = try #require(asBob.posts[bob.username]?["user"] as? [String: Any])
            #expect(bobSelf["email"] as? String == "\(bob.username)@example.com")
            Self.expectNoSecrets(bobSelf)

            // Without a session: public users without email, private ones gone.
            let anonymous = try await Self.wall(tag)
            let annForAnyone = try #require(anonymous.posts[ann.username]?["user"] as? [String: Any])
            #expect(annForAnyone["username"] as? String == ann.username)
            #expect(annForAnyone["email"] == nil)
            Self.expectNoSecrets(annForAnyone)
            #expect(anonymous.posts[bob.username]?["user"] == nil)

            // The master key sees everybody, emails included, secrets still not.
            let master = try await Self.wall(tag, master: true)
            for user in [ann, bob] {
                let included = try #require(master.posts[user.username]?["user"] as? [String: Any])
                #expect(included["objectId"] as? String == user.id)
                #expect(included["email"] as? String == "\(user.username)@example.com")
                Self.expectNoSecrets(included)
            }

            // Three posts, two users: one lookup per query, not one per row.
            for requestId in [asAnn.requestId, asBob.requestId, anonymous.requestId, master.requestId] {
                #expect(try Self.lookups(of: requestId) == 1)
            }
        }

        @Test func getByIdIncludesAPrivateUserOnlyForThemselfAndNoIncludeLooksNothingUp() async throws {
            let carl = try await AuthAPI.signUp("wallcarl", email: true)
            let tag = AuthAPI.uniqueName("tag")
            let created = try await AuthAPI.send("POST", "/classes/WallPost", [
                "tag": tag, "author": carl.username,
                "user": ["__type": "Pointer", "className": "_User", "objectId": carl.id],
            ], token: carl.token)
            let id = try #require(created.json?["objectId"] as? String)

            let read = try await AuthAPI.send("GET", "/classes/WallPost/\(id)?include=user", token: carl.token)
            let user = try #require(read.json?["user"] as? [String: Any])
            #expect(user["username"] as? String == carl.username)
            #expect(user["email"] as? String == "\(carl.username)@example.com")
            Self.expectNoSecrets(user)
            // Carl is private (the default): for anybody else the key disappears.
            let anonymous = try await AuthAPI.send("GET", "/classes/WallPost/\(id)?include=user")
            #expect(anonymous.status == 200)
            #expect(anonymous.json?["objectId"] as? String == id)
            #expect(anonymous.json?["user"] == nil)

            let requestId = UUID().uuidString.lowercased()
            var headers = AuthAPI.headers()
            headers["X-Parse-Request-Id"] = requestId
            let plain = try await HTTP.send("GET", "/classes/WallPost/\(id)", headers: headers)
            let pointer = try #require(plain.json?["user"] as? [String: Any])
            #expect(pointer["__type"] as? String == "Pointer")
            #expect(try Self.lookups(of: requestId) == 0)
        }

        @Test func withAuthStoppedAnIncludeOfUsersFailsWithTheTimeoutInsteadOfPointers() async throws {
            let tag = AuthAPI.uniqueName("tag")
            let created = try await AuthAPI.send("POST", "/classes/WallPost", [
                "tag": tag, "author": "nobody",
                "user": ["__type": "Pointer", "className": "_User", "objectId": "abcdefghij"],
            ], master: true)
            #expect(created.status == 201, "\(created.text)")
            let query = "where=" + #"{"tag":"\#(tag)"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            try await TestStack.while(["stop-service", "auth"], restartWith: ["start-service", "auth"]) {
                let started = ContinuousClock.now
                let included = try await AuthAPI.send("GET", "/classes/WallPost?\(query)&include=user", master: true)
                #expect(included.status == 504, "\(included.text)")
                #expect(included.json?["code"] as? Int == 124)
                #expect((included.json?["error"] as? String)?.contains("auth") == true, "\(included.text)")
                #expect(ContinuousClock.now - started < .seconds(9))   // posts answers before the gateway gives up

                let plain = try await AuthAPI.send("GET", "/classes/WallPost?\(query)", master: true)
                #expect(plain.status == 200)
            }
            let ready = try await HTTP.waitFor("GET", "/health/ready", timeout: .seconds(30)) { $0.status == 200 }
            #expect(ready.status == 200)
        }
    }
}
