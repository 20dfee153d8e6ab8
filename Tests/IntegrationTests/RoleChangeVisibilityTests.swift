import Foundation
import Testing

extension IntegrationSuite {
    /// A role or membership write is seen by the next request through the gateway that answered it, as
    /// parse-server clears its role cache in the request (other gateways follow with `role.changed`).
    @Suite struct RoleChangeVisibility {
        private static func pointer(_ className: String, _ id: String) -> [String: Any] {
            ["__type": "Pointer", "className": className, "objectId": id]
        }

        private static func read(_ cls: String, _ id: String, token: String) async throws -> Int {
            try await AuthAPI.send("GET", "/classes/\(cls)/\(id)", token: token).status
        }

        @Test func aMemberAddedToARoleReadsTheRolesObjectsAtOnce() async throws {
            let user = try await AuthAPI.signUp("joiner")
            let roleName = "Readers_\(UUID().uuidString.prefix(8))"
            let created = try await AuthAPI.send("POST", "/roles", ["name": roleName, "ACL": ["*": ["read": true]]], master: true)
            let roleId = try #require(created.json?["objectId"] as? String, "role: \(created.text)")
            let cls = PostsHTTP.uniqueClass("RoleOnly")
            let object = try await PostsHTTP.create(cls, ["ACL": ["role:\(roleName)": ["read": true]]], master: true)
            // Caches the user's identity without the role.
            #expect(try await Self.read(cls, object, token: user.token) == 404)

            let added = try await AuthAPI.send("PUT", "/roles/\(roleId)",
                                               ["users": ["__op": "AddRelation", "objects": [Self.pointer("_User", user.id)]]],
                                               master: true)
            #expect(added.status == 200, "added: \(added.text)")
            #expect(try await Self.read(cls, object, token: user.token) == 200)

            // Taken out again through a batch: the very next request no longer holds the role.
            let removed = try await AuthAPI.send("POST", "/batch", ["requests": [
                ["method": "PUT", "path": "/parse/classes/_Role/\(roleId)",
                 "body": ["users": ["__op": "RemoveRelation", "objects": [Self.pointer("_User", user.id)]]]],
            ]], master: true)
            #expect(removed.status == 200, "removed: \(removed.text)")
            #expect(!removed.text.contains(#""error""#), "removed: \(removed.text)")
            #expect(try await Self.read(cls, object, token: user.token) == 404)
        }
    }

    @Suite struct RouteShapes {
        @Test func extraPathSegmentsAreAnUnknownRoute() async throws {
            let cls = PostsHTTP.uniqueClass("Shape")
            let id = try await PostsHTTP.create(cls, ["n": 1])
            let reply = try await PostsHTTP.send("POST", "/classes/\(cls)/\(id)/extra/segments", ["n": 2])
            #expect(reply.status == 404)
            #expect(reply.code == 108)
            #expect(reply.error == "Cannot POST /classes/\(cls)/\(id)/extra/segments: no such route.")
            let users = try await AuthAPI.send("GET", "/users/a/b/c")
            #expect(users.status == 404)
            #expect(users.json?["code"] as? Int == 108)
        }
    }
}
