import Foundation
import Testing

extension IntegrationSuite {
    /// `PARSE_SERVER_READ_ONLY_MASTER_KEY`: reads as the master key does, and every kind of write is refused with
    /// parse-server's 119, leaving the data as it was.
    @Suite struct ReadOnlyMasterKey {
        static func send(_ method: String, _ path: String, _ body: Any? = nil) async throws -> Reply {
            try await HTTP.send(method, path, headers: AuthQuery.headers(.readOnlyMaster),
                                body: try body.map { try JSONSerialization.data(withJSONObject: $0) })
        }

        static func expectRefused(_ reply: Reply, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(reply.status == 400, "\(reply.text)", sourceLocation: sourceLocation)
            #expect(AuthAPI.error(reply) == (119, message), "\(reply.text)", sourceLocation: sourceLocation)
        }

        static func operation(_ name: String) -> String { "read-only masterKey isn't allowed to perform the \(name) operation." }

        @Test func readsLikeTheMasterKey() async throws {
            let alice = try await AuthAPI.signUp("ro", email: true, extra: ["age": 33])
            let cls = PostsHTTP.uniqueClass("ReadOnly")
            let hidden = try await PostsHTTP.create(cls, ["n": 1, "ACL": [:] as [String: Any]], master: true)

            let object = try await Self.send("GET", "/classes/\(cls)/\(hidden)")
            #expect(object.status == 200)
            #expect(object.json?["n"] as? Int == 1)
            let listed = try await PostsHTTP.send("GET", "/classes/\(cls)", query: ["count": "1"])
            #expect(listed.json?["count"] as? Int == 0)
            let listedReadOnly = try await HTTP.send("GET", "/classes/\(cls)?count=1", headers: AuthQuery.headers(.readOnlyMaster))
            #expect(listedReadOnly.json?["count"] as? Int == 1)
            #expect(try await Self.send("GET", "/schemas/\(cls)").status == 200)

            let user = try await Self.send("GET", "/users/\(alice.id)")
            #expect(user.json?["email"] as? String == "\(alice.username)@example.com")
            let byEmail = try await AuthQuery.find("users", ["email": "\(alice.username)@example.com", "age": ["$gt": 30]],
                                                   as: .readOnlyMaster)
            #expect(AuthQuery.ids(byEmail) == [alice.id])
            let sessions = try await AuthQuery.find("sessions", ["user": AuthQuery.pointer("_User", alice.id)], as: .readOnlyMaster)
            #expect(AuthQuery.ids(sessions).count == 1)
            #expect(try await Self.send("GET", "/roles").status == 200)
        }

        @Test func objectAndSchemaWritesAreRefused() async throws {
            let cls = PostsHTTP.uniqueClass("ReadOnly")
            let id = try await PostsHTTP.create(cls, ["n": 1, "votes": 0], master: true)
            Self.expectRefused(try await Self.send("POST", "/classes/\(cls)", ["n": 2]), Self.operation("create"))
            Self.expectRefused(try await Self.send("PUT", "/classes/\(cls)/\(id)", ["n": 3]), Self.operation("update"))
            Self.expectRefused(try await Self.send("DELETE", "/classes/\(cls)/\(id)"), Self.operation("delete"))
            // Increments of vote fields take another way (the votes service): refused all the same.
            Self.expectRefused(try await Self.send("PUT", "/classes/\(cls)/\(id)", ["votes": ["__op": "Increment", "amount": 1]]),
                               Self.operation("update"))
            Self.expectRefused(try await Self.send("POST", "/schemas/\(cls)Other", ["className": "\(cls)Other"]),
                               "read-only masterKey isn't allowed to create a schema.")
            Self.expectRefused(try await Self.send("PUT", "/schemas/\(cls)", ["fields": ["x": ["type": "String"]]]),
                               "read-only masterKey isn't allowed to update a schema.")
            Self.expectRefused(try await Self.send("DELETE", "/schemas/\(cls)"), "read-only masterKey isn't allowed to delete a schema.")
            Self.expectRefused(try await Self.send("DELETE", "/purge/\(cls)"), "read-only masterKey isn't allowed to purge a schema.")

            let batch = try await Self.send("POST", "/batch", ["requests": [
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 4]],
                ["method": "PUT", "path": "/parse/classes/\(cls)/\(id)", "body": ["n": 5]],
            ]])
            let items = (try? JSONSerialization.jsonObject(with: batch.body)) as? [[String: Any]]
            #expect(items?.map { PostsBatch.error($0) } == ["119 \(Self.operation("create"))", "119 \(Self.operation("update"))"],
                    "\(batch.text)")

            let after = try await PostsHTTP.find(cls, ["count": 1], master: true)
            #expect(after.json?["count"] as? Int == 1)
            let object = PostsHTTP.results(after).first
            #expect(object?["n"] as? Int == 1 && object?["votes"] as? Int == 0)
            #expect(try await PostsHTTP.send("GET", "/schemas/\(cls)", master: true).json?["fields"].map { ($0 as? [String: Any])?["x"] == nil } == true)
        }

        @Test func userRoleAndSessionWritesAreRefused() async throws {
            let alice = try await AuthAPI.signUp("ro")
            let role = try await AuthAPI.send("POST", "/roles", ["name": "RO_\(UUID().uuidString.prefix(6))", "ACL": [:] as [String: Any]],
                                              master: true)
            let roleId = try #require(role.json?["objectId"] as? String)
            let session = try await AuthAPI.send("GET", "/sessions/me", token: alice.token)
            let sessionId = try #require(session.json?["objectId"] as? String)

            Self.expectRefused(try await Self.send("POST", "/users", ["username": AuthAPI.uniqueName("ro"), "password": "p"]),
                               Self.operation("create"))
            Self.expectRefused(try await Self.send("PUT", "/users/\(alice.id)", ["nick": "x"]), Self.operation("update"))
            Self.expectRefused(try await Self.send("DELETE", "/users/\(alice.id)"), Self.operation("delete"))
            Self.expectRefused(try await Self.send("POST", "/roles", ["name": "RO_new", "ACL": [:] as [String: Any]]), Self.operation("create"))
            Self.expectRefused(try await Self.send("PUT", "/roles/\(roleId)", ["rank": 1]), Self.operation("update"))
            Self.expectRefused(try await Self.send("DELETE", "/roles/\(roleId)"), Self.operation("delete"))
            Self.expectRefused(try await Self.send("POST", "/sessions", ["user": AuthQuery.pointer("_User", alice.id)]),
                               Self.operation("create"))
            Self.expectRefused(try await Self.send("PUT", "/sessions/\(sessionId)", ["device": "x"]), Self.operation("update"))
            Self.expectRefused(try await Self.send("DELETE", "/sessions/\(sessionId)"), Self.operation("delete"))

            let user = try await AuthAPI.send("GET", "/users/\(alice.id)", master: true)
            #expect(user.status == 200 && user.json?["nick"] == nil)
            #expect(try await AuthAPI.send("GET", "/roles/\(roleId)", master: true).json?["rank"] == nil)
            #expect(try await AuthAPI.send("GET", "/sessions/me", token: alice.token).status == 200)
        }

        /// parse-server's file routes answer these themselves: 403 and an `error` without a code.
        @Test func fileWritesAreRefused() async throws {
            var headers = AuthQuery.headers(.readOnlyMaster)
            headers["Content-Type"] = "text/plain"
            let upload = try await HTTP.send("POST", "/files/readonly.txt", headers: headers, body: Data("hello".utf8))
            #expect(upload.status == 403)
            #expect(upload.text == #"{"error":"read-only masterKey isn't allowed to create a file."}"#)
            let stored = try await FilesAPI.store("kept.txt", Data("kept".utf8), contentType: "text/plain")
            let delete = try await HTTP.send("DELETE", "/files/\(stored.name)", headers: AuthQuery.headers(.readOnlyMaster))
            #expect(delete.status == 403)
            #expect(delete.text == #"{"error":"read-only masterKey isn't allowed to delete a file."}"#)
            #expect(try await FilesAPI.get(stored.url).status == 200)
        }
    }
}
