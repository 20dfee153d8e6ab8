import Foundation
import Testing

extension IntegrationSuite {
    /// parse-server's `allowCustomObjectId` (`PARSE_SERVER_ALLOW_CUSTOM_OBJECT_ID`): posts and auth restarted with
    /// it, then as before. Off, a client's `objectId` is refused (`PostsObjects.badWritesAreClearParseErrors`).
    @Suite struct CustomObjectIds {
        private func withCustomObjectIds(_ body: () async throws -> Void) async throws {
            for service in ["posts", "auth"] {
                try TestStack.control(["stop-service", service])
                try TestStack.control(["start-service", service], settings: ["PARSE_SERVER_ALLOW_CUSTOM_OBJECT_ID": "true"])
            }
            try await TestStack.run(body, thenAlways: {
                for service in ["posts", "auth"] {
                    try TestStack.control(["stop-service", service])
                    try TestStack.control(["start-service", service])
                }
            })
        }

        @Test func aCreateMayNameItsObject() async throws {
            try await withCustomObjectIds {
                let cls = PostsHTTP.uniqueClass("Custom")
                let id = "offline-\(UUID().uuidString.prefix(8))"
                let created = try await PostsHTTP.send("POST", "/classes/\(cls)", ["objectId": id, "name": "Tom"])
                #expect(created.status == 201, "\(created.text)")
                #expect(created.json?["objectId"] as? String == id)
                let read = try await PostsHTTP.send("GET", "/classes/\(cls)/\(id)")
                #expect(read.status == 200 && read.json?["name"] as? String == "Tom", "\(read.text)")

                let again = try await PostsHTTP.send("POST", "/classes/\(cls)", ["objectId": id])
                #expect(again.code == 137 && again.error == "A duplicate value for a field with unique values was provided")
                for empty in ["", NSNull()] as [Any] {
                    let refused = try await PostsHTTP.send("POST", "/classes/\(cls)", ["objectId": empty])
                    #expect(refused.code == 104 && refused.error == "objectId must not be empty, null or undefined")
                }
                let slash = try await PostsHTTP.send("POST", "/classes/\(cls)", ["objectId": "a/b"])
                #expect(slash.code == 104)
                let generated = try await PostsHTTP.create(cls, ["name": "Tim"])
                #expect(generated.count == 10)

                let userId = "user-\(UUID().uuidString.prefix(8))"
                let user = try await AuthAPI.send("POST", "/users", ["objectId": userId, "username": "custom-\(userId)",
                                                                      "password": "pw"])
                #expect(user.status == 201 && user.json?["objectId"] as? String == userId, "\(user.text)")
                let twin = try await AuthAPI.send("POST", "/users", ["objectId": userId, "username": "twin-\(userId)",
                                                                      "password": "pw"])
                #expect(AuthAPI.error(twin).0 == 137, "\(twin.text)")

                let roleId = "role-\(UUID().uuidString.prefix(8))"
                let role = try await AuthAPI.send("POST", "/roles", ["objectId": roleId, "name": "r\(roleId.suffix(8))",
                                                                      "ACL": ["*": ["read": true]]], master: true)
                #expect(role.status == 201 && role.json?["objectId"] as? String == roleId, "\(role.text)")
            }
        }
    }
}
