import Foundation
import Testing

extension IntegrationSuite {
    /// `include` on `/users` and `/classes/_User`: pointers to objects of posts' classes come back as the objects,
    /// read from posts as the caller may read them.
    @Suite struct AuthUserInclude {
        @Test func getAUserWithIncludeExpandsThePointer() async throws {
            let cls = PostsHTTP.uniqueClass("Child")
            let child = try await PostsHTTP.create(cls, ["name": "parsephp", "grand": ["__type": "Pointer", "className": cls, "objectId": "none"]])
            let hidden = try await PostsHTTP.create(cls, ["name": "secret", "ACL": [:]], master: true)
            let user = try await AuthAPI.signUp("parent", extra: [
                "child": PostsHTTP.pointer(cls, child), "other": PostsHTTP.pointer(cls, hidden),
                "children": [PostsHTTP.pointer(cls, child)],
            ])

            let reply = try await AuthAPI.send("GET", "/classes/_User/\(user.id)?include=child,other,children", token: user.token)
            #expect(reply.status == 200, "\(reply.text)")
            let expanded = try #require(reply.json?["child"] as? [String: Any], "\(reply.text)")
            #expect(expanded["__type"] as? String == "Object")
            #expect(expanded["className"] as? String == cls)
            #expect(expanded["objectId"] as? String == child)
            #expect(expanded["name"] as? String == "parsephp")
            // Posts' ACLs hold: an object the caller may not read stays a pointer.
            #expect((reply.json?["other"] as? [String: Any])?["__type"] as? String == "Pointer")
            #expect(((reply.json?["children"] as? [[String: Any]])?.first)?["name"] as? String == "parsephp")

            let plain = try await AuthAPI.send("GET", "/users/\(user.id)", token: user.token)
            #expect((plain.json?["child"] as? [String: Any])?["__type"] as? String == "Pointer")

            let me = try await AuthAPI.send("GET", "/users/me?include=child", token: user.token)
            #expect((me.json?["child"] as? [String: Any])?["name"] as? String == "parsephp", "\(me.text)")
            #expect(me.json?["sessionToken"] as? String == user.token)

            let query = "where=" + #"{"objectId":"\#(user.id)"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let found = try await AuthAPI.send("GET", "/users?\(query)&include=child", master: true)
            let first = try #require((found.json?["results"] as? [[String: Any]])?.first, "\(found.text)")
            #expect((first["child"] as? [String: Any])?["name"] as? String == "parsephp")
        }

        @Test func usersIncludedFromSessionsAndUsersComeFromAuthItself() async throws {
            let cls = PostsHTTP.uniqueClass("Pet")
            let pet = try await PostsHTTP.create(cls, ["name": "rex"])
            let friend = try await AuthAPI.signUp("friend", extra: ["pet": PostsHTTP.pointer(cls, pet), "ACL": ["*": ["read": true]]])
            let user = try await AuthAPI.signUp("owner", extra: ["friend": PostsHTTP.pointer("_User", friend.id)])

            let session = try await AuthAPI.send("GET", "/sessions/me?include=user", token: user.token)
            let sessionUser = try #require(session.json?["user"] as? [String: Any], "\(session.text)")
            #expect(sessionUser["username"] as? String == user.username, "\(session.text)")
            #expect(sessionUser["className"] as? String == "_User")

            let reply = try await AuthAPI.send("GET", "/users/me?include=friend.pet", token: user.token)
            let included = try #require(reply.json?["friend"] as? [String: Any], "\(reply.text)")
            #expect(included["username"] as? String == friend.username, "\(reply.text)")
            #expect(included["sessionToken"] == nil)
            #expect((included["pet"] as? [String: Any])?["name"] as? String == "rex", "\(reply.text)")
        }
    }
}
