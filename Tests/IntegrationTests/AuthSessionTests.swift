import Foundation
import Testing

extension IntegrationSuite {
    @Suite struct AuthSessions {
        @Test func ownSessionsOnly() async throws {
            let alice = try await AuthAPI.signUp("sess")
            let bob = try await AuthAPI.signUp("sess")
            let me = try await AuthAPI.send("GET", "/sessions/me", token: alice.token)
            #expect(me.status == 200)
            let session = try #require(me.json)
            #expect(session["sessionToken"] as? String == alice.token)
            #expect((session["user"] as? [String: Any])?["objectId"] as? String == alice.id)
            #expect((session["createdWith"] as? [String: Any])?["action"] as? String == "signup")
            #expect((session["expiresAt"] as? [String: Any])?["__type"] as? String == "Date")
            let sessionId = try #require(session["objectId"] as? String)

            let noToken = try await AuthAPI.send("GET", "/sessions/me")
            #expect(AuthAPI.error(noToken) == (209, "Session token required."))
            let list = try await AuthAPI.send("GET", "/sessions", token: bob.token)
            let users = (list.json?["results"] as? [[String: Any]])?.compactMap { ($0["user"] as? [String: Any])?["objectId"] as? String }
            #expect(users == [bob.id])
            let anonymousList = try await AuthAPI.send("GET", "/sessions")
            #expect(AuthAPI.error(anonymousList).0 == 209)
            let masterList = try await HTTP.send("GET", "/sessions?where=%7B%22objectId%22%3A%22\(sessionId)%22%7D",
                                                 headers: AuthAPI.headers(master: true))
            #expect((masterList.json?["results"] as? [Any])?.count == 1)

            let othersGet = try await AuthAPI.send("GET", "/sessions/\(sessionId)", token: bob.token)
            #expect(othersGet.status == 404)
            let othersDelete = try await AuthAPI.send("DELETE", "/sessions/\(sessionId)", token: bob.token)
            #expect(AuthAPI.error(othersDelete) == (101, "Object not found for delete."))
            let acl = try await AuthAPI.send("PUT", "/sessions/\(sessionId)", ["ACL": [:] as [String: Any]], token: alice.token)
            #expect(AuthAPI.error(acl) == (105, "Cannot set ACL on a Session."))
            let custom = try await AuthAPI.send("PUT", "/sessions/\(sessionId)", ["device": "phone"], token: alice.token)
            #expect(custom.status == 200)

            let created = try await AuthAPI.send("POST", "/sessions", ["device": "tablet"], token: alice.token)
            #expect(created.status == 201)
            let newToken = try #require(created.json?["sessionToken"] as? String)
            #expect((created.json?["createdWith"] as? [String: Any])?["action"] as? String == "create")
            #expect(try await AuthAPI.send("GET", "/users/me", token: newToken).status == 200)
            let anonymousCreate = try await AuthAPI.send("POST", "/sessions", [:])
            #expect(AuthAPI.error(anonymousCreate) == (209, "Session token required."))

            let deleteOwn = try await AuthAPI.send("DELETE", "/sessions/\(sessionId)", token: alice.token)
            #expect(deleteOwn.status == 200)
            #expect(try await AuthAPI.send("GET", "/users/me", token: alice.token).status == 400)
            #expect(try await AuthAPI.send("GET", "/users/me", token: newToken).status == 200)
        }
    }
}
