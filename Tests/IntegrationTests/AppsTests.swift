import Foundation
import Testing

extension IntegrationSuite {
    /// Several apps on one stack: apps created at run time through the registry's API (`/admin/apps`, the admin
    /// key), each with its own keys and data, none of which another app (the stack's own included) can reach with
    /// its keys, session tokens or object ids.
    @Suite struct Apps {
        /// An app as the registry's API answered its creation.
        struct App {
            let name: String
            let id: String
            let masterKey: String
            let restKey: String

            /// A call to the Parse API as this app's client (its REST key), or its master.
            func send(_ method: String, _ path: String, _ body: Any? = nil, master: Bool = false,
                      token: String? = nil) async throws -> Reply {
                var headers = ["X-Parse-Application-Id": id, "X-Parse-REST-API-Key": restKey]
                if master { headers["X-Parse-Master-Key"] = masterKey }
                if let token { headers["X-Parse-Session-Token"] = token }
                return try await PostsHTTP.send(method, path, body, headers: headers)
            }
        }

        static let adminKey = TestStack.environment["PARSE_TEST_ADMIN_KEY"] ?? "myAdminKey"

        /// The server's root (the admin API is outside the Parse mount).
        static var root: String {
            let url = URL(string: TestStack.serverURL)!
            return "\(url.scheme ?? "http")://\(url.host ?? "127.0.0.1"):\(url.port ?? 80)"
        }

        static func admin(_ method: String, _ path: String = "", _ body: [String: Any]? = nil,
                          key: String? = adminKey) async throws -> Reply {
            var headers = ["Content-Type": "application/json"]
            if let key { headers["X-Parse-Admin-Key"] = key }
            return try await HTTP.send(method, "/admin/apps" + path, headers: headers,
                                       body: try body.map { try JSONSerialization.data(withJSONObject: $0) }, base: root)
        }

        static func create(_ prefix: String) async throws -> App {
            let name = prefix + UUID().uuidString.prefix(8)
            let reply = try await admin("POST", "", ["name": name])
            #expect(reply.status == 201, "\(reply.text)")
            let json = try #require(reply.json)
            for key in ["applicationId", "masterKey", "clientKey", "restApiKey", "javascriptKey"] {
                #expect((json[key] as? String)?.isEmpty == false, "\(key) in \(reply.text)")
            }
            return App(name: name, id: try #require(json["applicationId"] as? String),
                       masterKey: try #require(json["masterKey"] as? String), restKey: try #require(json["restApiKey"] as? String))
        }

        static func delete(_ app: App) async throws {
            let reply = try await admin("DELETE", "/\(app.name)?confirm=\(app.name)")
            #expect(reply.status == 200, "\(reply.text)")
        }

        @Test func theRegistryNeedsItsKeyAndListsTheStacksAppFirst() async throws {
            #expect(try await Self.admin("GET", key: nil).status == 403)
            #expect(try await Self.admin("GET", key: "wrong").status == 403)
            #expect(try await Self.admin("GET", key: TestStack.masterKey).status == 403)
            let app = try await Self.create("Paws")
            let list = try await Self.admin("GET")
            let apps = try #require(list.json?["results"] as? [[String: Any]], "\(list.text)")
            #expect(apps.first?["applicationId"] as? String == TestStack.applicationId)
            #expect(apps.first?["isStackApp"] as? Bool == true)
            #expect(apps.contains { $0["applicationId"] as? String == app.id && $0["name"] as? String == app.name })
            #expect(apps.allSatisfy { $0["masterKey"] == nil }, "a list shows no keys")

            let twin = try await Self.admin("POST", "", ["name": app.name])
            #expect(twin.status == 400 && twin.code == 137, "\(twin.text)")
            let stackName = try #require(apps.first?["name"] as? String)
            #expect(try await Self.admin("POST", "", ["name": stackName]).code == 137)
            #expect(try await Self.admin("POST", "", ["name": ""]).code == 107)
            #expect(try await Self.admin("POST", "", ["name": "x", "applicationId": "no spaces"]).code == 107)
            #expect(try await Self.admin("DELETE", "/\(stackName)?confirm=\(stackName)").code == 119)
            try await Self.delete(app)
        }

        @Test func objectsUsersAndSessionsStayInTheirApp() async throws {
            let first = try await Self.create("First")
            let second = try await Self.create("Second")
            let cls = PostsHTTP.uniqueClass("Cat")
            var ids: [String: String] = [:]
            for app in [first, second] {
                let created = try await app.send("POST", "/classes/\(cls)", ["name": app.name])
                #expect(created.status == 201, "\(created.text)")
                ids[app.id] = created.json?["objectId"] as? String
            }
            for (app, other) in [(first, second), (second, first)] {
                let found = try await app.send("GET", "/classes/\(cls)")
                #expect(PostsHTTP.results(found).map { $0["name"] as? String } == [app.name], "\(found.text)")
                let theirs = try await app.send("GET", "/classes/\(cls)/\(ids[other.id] ?? "")", master: true)
                #expect(theirs.status == 404, "\(theirs.text)")
                let schemas = try await app.send("GET", "/schemas/\(cls)", master: true)
                #expect(schemas.status == 200, "\(schemas.text)")
            }
            // The stack's own app has no such class, and another app's keys do not open it.
            #expect(PostsHTTP.results(try await PostsHTTP.send("GET", "/classes/\(cls)", master: true)).isEmpty)
            let mixed = try await PostsHTTP.send("GET", "/classes/\(cls)", headers: [
                "X-Parse-Application-Id": first.id, "X-Parse-Master-Key": second.masterKey])
            #expect(mixed.status == 403, "another app's master key: \(mixed.text)")
            let stackMaster = try await PostsHTTP.send("GET", "/classes/\(cls)", headers: [
                "X-Parse-Application-Id": first.id, "X-Parse-Master-Key": TestStack.masterKey])
            #expect(stackMaster.status == 403, "the stack's master key: \(stackMaster.text)")

            // The same username in both; each app's session token is unknown to the other and to the stack's app.
            let username = "ann" + UUID().uuidString.prefix(6)
            var tokens: [String: String] = [:]
            for app in [first, second] {
                let signed = try await app.send("POST", "/users", ["username": username, "password": "pw-\(app.name)"])
                #expect(signed.status == 201, "\(signed.text)")
                tokens[app.id] = signed.json?["sessionToken"] as? String
            }
            let wrongPassword = try await first.send("POST", "/login", ["username": username, "password": "pw-\(second.name)"])
            #expect(wrongPassword.code == 101, "\(wrongPassword.text)")
            let me = try await first.send("GET", "/users/me", token: tokens[first.id])
            #expect(me.status == 200 && me.json?["username"] as? String == username, "\(me.text)")
            let crossed = try await second.send("GET", "/users/me", token: tokens[first.id])
            #expect(crossed.code == 209, "\(crossed.text)")
            let onStack = try await PostsHTTP.send("GET", "/users/me", headers: ["X-Parse-Session-Token": tokens[first.id] ?? ""])
            #expect(onStack.code == 209, "\(onStack.text)")
            let users = try await first.send("GET", "/users", master: true)
            #expect(PostsHTTP.results(users).map { $0["username"] as? String } == [username], "\(users.text)")

            // Roles, config and functions are the app's too.
            for app in [first, second] {
                let role = try await app.send("POST", "/roles", ["name": "mods", "ACL": ["*": ["read": true]]], master: true)
                #expect(role.status == 201, "\(role.text)")
            }
            #expect(try await first.send("PUT", "/config", ["params": ["motto": "first"]], master: true).status == 200)
            let config = try await second.send("GET", "/config")
            #expect((config.json?["params"] as? [String: Any])?["motto"] == nil, "\(config.text)")
            let hello = try await first.send("POST", "/functions/hello", [:] as [String: Any])
            #expect(hello.code == 141, "the stack's Cloud Code is not the app's: \(hello.text)")

            try await Self.delete(first)
            try await Self.delete(second)
        }

        @Test func votesAndTheirEventsStayInTheirApp() async throws {
            let app = try await Self.create("Votes")
            let cls = PostsHTTP.uniqueClass("Cat")
            guard let mine = try VoteConsumerProcess.start(className: cls, keys: ["app.\(app.id).vote.cast.\(cls)"],
                                                           queue: "apps-test-" + cls),
                  let stacks = try VoteConsumerProcess.start(className: cls, queue: "apps-test-stack-" + cls) else {
                Issue.record("vote-consumer is not built next to the services")
                return
            }
            let created = try await app.send("POST", "/classes/\(cls)", ["votes": 0])
            let id = try #require(created.json?["objectId"] as? String, "\(created.text)")
            let stackId = try await PostsHTTP.create(cls, ["votes": 0])
            for _ in 0..<3 {
                let vote = try await app.send("PUT", "/classes/\(cls)/\(id)", ["votes": ["__op": "Increment", "amount": 1]])
                #expect(vote.status == 200, "\(vote.text)")
            }
            for _ in 0..<2 { #expect(try await VotesAPI.increment(cls, stackId).status == 200) }
            #expect(try await app.send("GET", "/classes/\(cls)/\(id)").json?["votes"] as? Int == 3)
            #expect(try await VotesAPI.count(cls, stackId) == 2)
            let appEvents = try mine.finish(expecting: 3)
            let stackEvents = try stacks.finish(expecting: 2)
            #expect(appEvents.distinct == 3, "the app's consumer")
            #expect(stackEvents.distinct == 2, "the stack app's consumer")
            try await Self.delete(app)
        }

        @Test func deletingAnAppRemovesItsKeysAndItsData() async throws {
            let app = try await Self.create("Gone")
            let cls = PostsHTTP.uniqueClass("Cat")
            #expect(try await app.send("POST", "/classes/\(cls)", ["n": 1]).status == 201)
            let databases = "SELECT count(*) FROM pg_database WHERE datname LIKE '%_app_\(app.id)'"
            #expect(Int(try VotesAPI.sql("postgres", databases).first ?? "") ?? 0 >= 1)

            let unconfirmed = try await Self.admin("DELETE", "/\(app.name)")
            #expect(unconfirmed.status == 400, "\(unconfirmed.text)")
            #expect(try await app.send("GET", "/classes/\(cls)").status == 200)
            try await Self.delete(app)
            let refused = try await app.send("GET", "/classes/\(cls)", master: true)
            #expect(refused.status == 403, "\(refused.text)")
            #expect(try VotesAPI.sql("postgres", databases).first == "0")
            #expect(try await Self.admin("DELETE", "/\(app.name)?confirm=\(app.name)").status == 404)
        }
    }
}
