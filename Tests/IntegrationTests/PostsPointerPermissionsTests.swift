import Foundation
import Testing

extension IntegrationSuite {
    /// Pointer permissions: `readUserFields`, `writeUserFields` and an operation's `pointerFields` let the user a
    /// field names read or write that object when the class-level permissions grant the operation to nobody else.
    @Suite struct PostsPointerPermissions {
        static func call(_ method: String, _ path: String, _ body: [String: Any]? = nil, token: String? = nil,
                         query: [String: String] = [:]) async throws -> Reply {
            var full = path
            if !query.isEmpty {
                var components = URLComponents()
                components.queryItems = query.map { URLQueryItem(name: $0.key, value: $0.value) }
                full += "?" + (components.percentEncodedQuery ?? "")
            }
            return try await AuthAPI.send(method, full, body, token: token)
        }

        @Test func onlyTheNamedUsersReadAndWrite() async throws {
            let owner = try await AuthAPI.signUp("owner")
            let editor = try await AuthAPI.signUp("editor")
            let stranger = try await AuthAPI.signUp("stranger")
            let cls = PostsHTTP.uniqueClass("Note")
            let made = try await PostsHTTP.send("POST", "/schemas/\(cls)", [
                "fields": ["title": ["type": "String"], "owner": ["type": "Pointer", "targetClass": "_User"],
                           "editors": ["type": "Array"]],
                "classLevelPermissions": ["find": [:], "get": ["pointerFields": ["owner"]], "count": [:], "create": ["*": true],
                                          "update": [:], "delete": [:], "addField": [:],
                                          "readUserFields": ["owner", "editors"], "writeUserFields": ["owner"]],
            ], master: true)
            #expect(made.status == 200, "\(made.text)")
            let mine = try await PostsHTTP.create(cls, ["title": "mine", "owner": PostsHTTP.pointer("_User", owner.id),
                                                        "editors": [PostsHTTP.pointer("_User", editor.id)]])
            _ = try await PostsHTTP.create(cls, ["title": "theirs", "owner": PostsHTTP.pointer("_User", stranger.id)])
            func titles(_ token: String?) async throws -> [String] {
                let reply = try await Self.call("GET", "/classes/\(cls)", token: token, query: ["order": "title"])
                #expect(reply.status == 200, "\(reply.text)")
                return PostsHTTP.results(reply).compactMap { $0["title"] as? String }
            }
            #expect(try await titles(owner.token) == ["mine"])
            #expect(try await titles(editor.token) == ["mine"])
            #expect(try await titles(stranger.token) == ["theirs"])
            #expect(try await titles(nil) == [])
            #expect(PostsHTTP.results(try await PostsHTTP.find(cls, [:], master: true)).count == 2)
            // get: readUserFields and get's pointerFields.
            #expect(try await Self.call("GET", "/classes/\(cls)/\(mine)", token: owner.token).status == 200)
            #expect(try await Self.call("GET", "/classes/\(cls)/\(mine)", token: editor.token).status == 200)
            let hidden = try await Self.call("GET", "/classes/\(cls)/\(mine)", token: stranger.token)
            #expect(hidden.status == 404 && hidden.code == 101, "\(hidden.text)")
            // Writes: only the owner, through writeUserFields.
            let byEditor = try await Self.call("PUT", "/classes/\(cls)/\(mine)", ["title": "edited"], token: editor.token)
            #expect(byEditor.status == 404 && byEditor.code == 101, "\(byEditor.text)")
            let byOwner = try await Self.call("PUT", "/classes/\(cls)/\(mine)", ["title": "mine2"], token: owner.token)
            #expect(byOwner.status == 200, "\(byOwner.text)")
            let deleteByStranger = try await Self.call("DELETE", "/classes/\(cls)/\(mine)", token: stranger.token)
            #expect(deleteByStranger.status == 404, "\(deleteByStranger.text)")
            let anonymous = try await Self.call("PUT", "/classes/\(cls)/\(mine)", ["title": "x"])
            #expect(anonymous.status == 404, "\(anonymous.text)")
            #expect(try await Self.call("DELETE", "/classes/\(cls)/\(mine)", token: owner.token).status == 200)
            #expect(try await titles(owner.token) == [])
        }
    }
}
