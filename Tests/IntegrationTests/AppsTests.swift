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

        /// Roles, sessions, schemas, installations and webhook functions of one app are not another's, both ways.
        @Test func rolesSessionsSchemasInstallationsAndHooksStayInTheirApp() async throws {
            let first = try await Self.create("RolesA")
            let second = try await Self.create("RolesB")
            var tokens: [String: String] = [:], users: [String: String] = [:]
            for app in [first, second] {
                let user = try await app.send("POST", "/users", ["username": "u" + UUID().uuidString.prefix(8), "password": "pw"])
                tokens[app.id] = try #require(user.json?["sessionToken"] as? String, "\(user.text)")
                users[app.id] = user.json?["objectId"] as? String
                let role = try await app.send("POST", "/roles", ["name": "role\(app.id.prefix(6))", "ACL": ["*": ["read": true]]],
                                              master: true)
                #expect(role.status == 201, "\(role.text)")
                let schema = try await app.send("POST", "/schemas/Only\(app.id.prefix(6))", ["className": "Only\(app.id.prefix(6))"],
                                                master: true)
                #expect(schema.status == 200, "\(schema.text)")
                let installation = try await app.send("POST", "/installations", [
                    "installationId": UUID().uuidString, "deviceType": "android", "deviceToken": "tok-\(app.id)"])
                #expect(installation.status == 201, "\(installation.text)")
                let hook = try await app.send("POST", "/hooks/functions", ["functionName": "ping\(app.id.prefix(6))",
                                                                           "url": "http://127.0.0.1:9/ping"], master: true)
                #expect(hook.status == 200, "\(hook.text)")
            }
            for (app, other) in [(first, second), (second, first)] {
                let mine = "\(app.id.prefix(6))", theirs = "\(other.id.prefix(6))"
                let roles = PostsHTTP.results(try await app.send("GET", "/roles", master: true)).compactMap { $0["name"] as? String }
                #expect(roles == ["role\(mine)"], "\(roles)")
                let sessions = PostsHTTP.results(try await app.send("GET", "/sessions", master: true))
                #expect(sessions.count == 1 && (sessions.first?["user"] as? [String: Any])?["objectId"] as? String == users[app.id],
                        "\(sessions)")
                #expect(try await app.send("GET", "/sessions/me", token: tokens[other.id]).code == 209)
                let classes = PostsHTTP.results(try await app.send("GET", "/schemas", master: true)).compactMap { $0["className"] as? String }
                #expect(classes.contains("Only\(mine)") && !classes.contains("Only\(theirs)"), "\(classes)")
                #expect(try await app.send("GET", "/schemas/Only\(theirs)", master: true).code == 103)
                let devices = PostsHTTP.results(try await app.send("GET", "/installations", master: true)).compactMap { $0["deviceToken"] as? String }
                #expect(devices == ["tok-\(app.id)"], "\(devices)")
                let listed = try await app.send("GET", "/hooks/functions", master: true)
                let hooks = ((try JSONSerialization.jsonObject(with: listed.body) as? [[String: Any]]) ?? []).compactMap { $0["functionName"] as? String }
                #expect(hooks == ["ping\(mine)"], "\(hooks)")
            }
            try await Self.delete(first)
            try await Self.delete(second)
        }

        /// With client object ids allowed, the same class and object id in two apps and the stack's own are three
        /// objects.
        @Test func theSameObjectIdInEachAppIsEachAppsOwn() async throws {
            let first = try await Self.create("SameA")
            let second = try await Self.create("SameB")
            try TestStack.control(["stop-service", "posts"])
            try TestStack.control(["start-service", "posts"], settings: ["PARSE_SERVER_ALLOW_CUSTOM_OBJECT_ID": "true"])
            try await TestStack.run({
                let cls = PostsHTTP.uniqueClass("Same")
                let id = "same-\(UUID().uuidString.prefix(8))"
                for app in [first, second] {
                    let created = try await app.send("POST", "/classes/\(cls)", ["objectId": id, "owner": app.name])
                    #expect(created.status == 201 && created.json?["objectId"] as? String == id, "\(created.text)")
                }
                let mine = try await PostsHTTP.send("POST", "/classes/\(cls)", ["objectId": id, "owner": "stack"])
                #expect(mine.status == 201, "\(mine.text)")
                for (app, owner) in [(first, first.name), (second, second.name)] {
                    let read = try await app.send("GET", "/classes/\(cls)/\(id)")
                    #expect(read.json?["owner"] as? String == owner, "\(read.text)")
                }
                #expect(try await PostsHTTP.send("GET", "/classes/\(cls)/\(id)").json?["owner"] as? String == "stack")
                #expect(try await first.send("DELETE", "/classes/\(cls)/\(id)").status == 200)
                #expect(try await second.send("GET", "/classes/\(cls)/\(id)").status == 200, "the other app's is still there")
            }, thenAlways: {
                try TestStack.control(["stop-service", "posts"])
                try TestStack.control(["start-service", "posts"])
            })
            try await Self.delete(first)
            try await Self.delete(second)
        }

        /// An app's webhook triggers run for its writes only, after* ones too (the stack's dispatcher takes every
        /// app's), and not for the stack's own app's writes to a class of the same name.
        @Test func anAppsTriggersRunForItsWritesOnly() async throws {
            let app = try await Self.create("Hooks")
            let other = try await Self.create("NoHooks")
            let receiver = try TriggerWebhookReceiver()
            let cls = PostsHTTP.uniqueClass("Hooked")
            for trigger in ["beforeSave", "afterSave"] {
                let path = "/\(trigger)/\(cls)"
                let reply = try await app.send("POST", "/hooks/triggers", ["className": cls, "triggerName": trigger,
                                                                          "url": receiver.url(path)], master: true)
                #expect(reply.status == 200, "\(reply.text)")
            }
            #expect(try await app.send("POST", "/classes/\(cls)", ["n": 1]).status == 201)
            #expect(receiver.calls("/beforeSave/\(cls)").count == 1, "registered before the write: it applies")
            let after = try await receiver.waitForCalls("/afterSave/\(cls)", timeout: .seconds(15)) { !$0.isEmpty }
            #expect(after.count == 1)
            #expect(try await other.send("POST", "/classes/\(cls)", ["n": 2]).status == 201)
            _ = try await PostsHTTP.create(cls, ["n": 3])
            try await Task.sleep(for: .seconds(1))
            #expect(receiver.calls("/beforeSave/\(cls)").count == 1 && receiver.calls("/afterSave/\(cls)").count == 1,
                    "another app's and the stack app's writes run none of them")
            await receiver.stop()
            try await Self.delete(app)
            try await Self.delete(other)
        }

        /// A file uploaded to an app is at that app's URL, and neither another app's nor the stack's own.
        @Test func anAppsFilesAreAtItsOwnURLs() async throws {
            let app = try await Self.create("Files")
            let other = try await Self.create("OtherFiles")
            let upload = try await HTTP.send("POST", "/files/cat.txt", headers: [
                "X-Parse-Application-Id": app.id, "X-Parse-Master-Key": app.masterKey, "Content-Type": "text/plain",
            ], body: Data("{\"purr\":1}".utf8))
            #expect(upload.status == 201, "\(upload.text)")
            let url = try #require(upload.json?["url"] as? String)
            let name = try #require(upload.json?["name"] as? String)
            #expect(url.hasSuffix("/files/\(app.id)/\(name)"), "\(url)")
            let download = try await HTTP.send("GET", "/files/\(app.id)/\(name)")
            #expect(download.status == 200 && download.text == "{\"purr\":1}", "raw bytes, though JSON: \(download.text)")
            for elsewhere in [other.id, TestStack.applicationId] {
                #expect(try await HTTP.send("GET", "/files/\(elsewhere)/\(name)").status == 404, "\(elsewhere)")
            }
            #expect(try await HTTP.send("GET", "/files/noSuchApp/\(name)").status == 403)
            // A pointer to the file in an object of the app names the app's URL.
            let created = try await app.send("POST", "/classes/Photo", ["image": ["__type": "File", "name": name]])
            let id = try #require(created.json?["objectId"] as? String, "\(created.text)")
            let read = try await app.send("GET", "/classes/Photo/\(id)")
            #expect(((read.json?["image"] as? [String: Any])?["url"] as? String)?.contains("/files/\(app.id)/") == true,
                    "\(read.text)")
            let deleted = try await HTTP.send("DELETE", "/files/\(name)", headers: [
                "X-Parse-Application-Id": app.id, "X-Parse-Master-Key": app.masterKey])
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(try await HTTP.send("GET", "/files/\(app.id)/\(name)").status == 404)
            try await Self.delete(app)
            try await Self.delete(other)
        }

        /// A LiveQuery client of an app hears of that app's objects only, and needs that app's keys.
        @Test func anAppsLiveQueriesHearOfItsObjectsOnly() async throws {
            let app = try await Self.create("Live")
            let cls = PostsHTTP.uniqueClass("Live")
            let wrongKey = try LiveQueryClient()
            try wrongKey.send(["op": "connect", "applicationId": app.id, "restAPIKey": "wrong"])
            #expect(try wrongKey.receive()?["code"] as? Int == 4)
            let client = try LiveQueryClient()
            try client.send(["op": "connect", "applicationId": app.id, "restAPIKey": app.restKey])
            #expect(try client.receive()?["op"] as? String == "connected")
            let subscribed = try client.subscribe(1, className: cls)
            #expect(subscribed?["op"] as? String == "subscribed", "\(subscribed ?? [:])")
            let stackClient = try LiveQueryClient()
            try stackClient.connect()
            _ = try stackClient.subscribe(1, className: cls)

            _ = try await PostsHTTP.create(cls, ["owner": "stack"])
            let created = try await app.send("POST", "/classes/\(cls)", ["owner": "app"])
            #expect(created.status == 201, "\(created.text)")
            let heard = try #require(try client.receive())
            #expect(heard["op"] as? String == "create", "\(heard)")
            #expect((heard["object"] as? [String: Any])?["owner"] as? String == "app", "\(heard)")
            #expect(try client.expectNothing() == nil, "nothing of the stack app's object")
            let stackHeard = try stackClient.receive()
            #expect((stackHeard?["object"] as? [String: Any])?["owner"] as? String == "stack", "\(stackHeard ?? [:])")
            #expect(try stackClient.expectNothing() == nil, "nothing of the app's object")
            try await Self.delete(app)
        }

        /// Each app's GraphQL schema is made of its own classes, and its queries, mutations and subscriptions reach
        /// its own objects only.
        @Test func graphQLServesEachAppItsOwnClasses() async throws {
            let app = try await Self.create("Graph")
            let other = try await Self.create("OtherGraph")
            let cls = PostsHTTP.uniqueClass("Gql") + "Cat"
            let field = GraphQLAPI.fieldName(cls)
            func run(_ app: App, _ query: String) async throws -> Reply {
                let body = try JSONSerialization.data(withJSONObject: ["query": query])
                return try await HTTP.send("POST", "", headers: [
                    "X-Parse-Application-Id": app.id, "X-Parse-REST-API-Key": app.restKey, "Content-Type": "application/json",
                ], body: body, base: GraphQLAPI.url)
            }
            #expect(try await app.send("POST", "/classes/\(cls)", ["name": "Tom"]).status == 201)
            let found = try await run(app, "{ \(field)s { edges { node { name } } } }")
            #expect(found.status == 200, "\(found.text)")
            #expect(GraphQLAPI.nodes((found.json?["data"] as? [String: Any])?["\(field)s"])
                .compactMap { $0["name"] as? String } == ["Tom"], "\(found.text)")
            let unknown = try await run(other, "{ \(field)s { edges { node { name } } } }")
            #expect(unknown.status == 400, "the other app has no such class: \(unknown.text)")
            #expect(try await other.send("POST", "/classes/\(cls)", ["name": "Felix"]).status == 201)
            let others = try await run(other, "{ \(field)s { edges { node { name } } } }")
            #expect(GraphQLAPI.nodes((others.json?["data"] as? [String: Any])?["\(field)s"])
                .compactMap { $0["name"] as? String } == ["Felix"], "\(others.text)")
            let mine = try await run(app, "mutation { create\(cls)(input: {fields: {name: \"Kit\"}}) { \(field) { name } } }")
            #expect(GraphQLAPI.errors(mine).isEmpty, "\(mine.text)")
            #expect(PostsHTTP.results(try await app.send("GET", "/classes/\(cls)")).count == 2)
            #expect(PostsHTTP.results(try await PostsHTTP.send("GET", "/classes/\(cls)", master: true)).isEmpty,
                    "the stack's own app has none of them")
            let stackKeys = try await HTTP.send("POST", "", headers: [
                "X-Parse-Application-Id": app.id, "X-Parse-Master-Key": TestStack.masterKey, "Content-Type": "application/json",
            ], body: Data(#"{"query":"{ health }"}"#.utf8), base: GraphQLAPI.url)
            #expect(stackKeys.status == 403, "the stack's master key: \(stackKeys.text)")

            // Subscriptions over graphql-transport-ws: the app's keys, the app's events.
            let socket = GraphQLAPI.url.replacingOccurrences(of: "http://", with: "ws://")
            let wrongKey = try LiveQueryClient(subprotocol: "graphql-transport-ws", url: socket)
            try wrongKey.send(["type": "connection_init", "payload": ["applicationId": app.id, "restAPIKey": "wrong"]])
            #expect(try wrongKey.command("recv 5")["closed"] as? Int == 4403)
            let client = try LiveQueryClient(subprotocol: "graphql-transport-ws", url: socket)
            try client.send(["type": "connection_init", "payload": ["X-Parse-Application-Id": app.id, "X-Parse-REST-API-Key": app.restKey]])
            #expect(try client.receive()?["type"] as? String == "connection_ack")
            try client.send(["id": "s", "type": "subscribe", "payload": ["query": "subscription { \(field)s { event node { name } } }"]])
            var heard: [String: Any]?
            for attempt in 0..<40 where heard == nil {
                _ = try await PostsHTTP.create(cls, ["name": "stack"])
                #expect(try await app.send("POST", "/classes/\(cls)", ["name": "app\(attempt)"]).status == 201)
                heard = try client.receive(timeout: 0.5)
            }
            let event = try #require(heard, "no event of the app's object")
            let data = (event["payload"] as? [String: Any])?["data"]
            #expect((GraphQLAPI.at(data, [field + "s", "node", "name"]) as? String)?.hasPrefix("app") == true, "\(event)")
            while let more = try client.expectNothing(for: 0.5) {
                let name = GraphQLAPI.at((more["payload"] as? [String: Any])?["data"], [field + "s", "node", "name"]) as? String
                #expect(name?.hasPrefix("app") == true, "only the app's objects: \(more)")
            }
            try await Self.delete(app)
            try await Self.delete(other)
        }

        /// An app's verification and reset mails name it and link to its own pages, which act on its users only.
        @Test func anAppsMailsAndPublicPagesAreItsOwn() async throws {
            let app = try await Self.create("Mail")
            try await AuthEmail.withMail { mail in
                let username = "mailer" + UUID().uuidString.prefix(6)
                let email = "\(username)@example.com", password = "pw-1-\(UUID().uuidString.prefix(6))"
                let signed = try await app.send("POST", "/users", ["username": username, "password": password, "email": email])
                #expect(signed.status == 201, "\(signed.text)")
                let message = try await mail.waitForMessage(to: email, containing: "Please verify your e-mail for")
                #expect(message.contains("Subject: Please verify your e-mail for \(app.name)"), "\(message)")
                let link = try #require(TestMailServer.link(in: message))
                #expect(link.hasPrefix("\(TestStack.serverURL)/apps/\(app.id)/verify_email?token="), "\(link)")
                let onStack = try Browser.get(link.replacingOccurrences(of: "/apps/\(app.id)/", with: "/apps/\(TestStack.applicationId)/"))
                #expect(onStack.location?.contains("verify_email_success") == false, "the stack's app has no such user: \(onStack)")
                let verified = try Browser.get(link)
                #expect(verified.location == "\(TestStack.serverURL)/apps/verify_email_success.html?username=\(username)", "\(verified)")
                #expect(try await app.send("POST", "/login", ["username": username, "password": password]).status == 200)

                #expect(try await app.send("POST", "/requestPasswordReset", ["email": email]).status == 200)
                let reset = try await mail.waitForMessage(to: email, containing: "Password Reset for \(app.name)")
                let resetLink = try #require(TestMailServer.link(in: reset))
                #expect(resetLink.hasPrefix("\(TestStack.serverURL)/apps/\(app.id)/request_password_reset?"), "\(resetLink)")
                let chooser = try #require(try Browser.get(resetLink).location)
                let action = "\(TestStack.serverURL)/apps/\(app.id)/request_password_reset"
                #expect(try Browser.get(chooser).body.contains("action=\"\(action)\""), "\(chooser)")
                let token = try #require(URLComponents(string: chooser)?.queryItems?.first { $0.name == "token" }?.value)
                let newPassword = "new-pass-\(UUID().uuidString.prefix(6))-7"
                let done = try Browser.postForm(action, [("username", username), ("token", token), ("new_password", newPassword)])
                #expect(done.location == "\(TestStack.serverURL)/apps/password_reset_success.html?username=\(username)", "\(done)")
                #expect(try await app.send("POST", "/login", ["username": username, "password": newPassword]).status == 200)
            }
            try await Self.delete(app)
        }

        /// `deploy/stack app` creates, lists, renames and deletes apps; a renamed app's mails say its new name.
        @Test func theScriptManagesAppsAndARenameReachesTheMails() async throws {
            let name = "Script" + UUID().uuidString.prefix(8)
            let created = try #require(try JSONSerialization.jsonObject(with: Data(try TestStack.output(["app", "create", name]).utf8))
                as? [String: Any])
            for key in ["applicationId", "masterKey", "clientKey", "restApiKey", "javascriptKey"] {
                #expect((created[key] as? String)?.isEmpty == false, "\(key) in \(created)")
            }
            let app = App(name: name, id: try #require(created["applicationId"] as? String),
                          masterKey: try #require(created["masterKey"] as? String), restKey: try #require(created["restApiKey"] as? String))
            func listed() throws -> [String] {
                try TestStack.output(["app", "list"]).split(separator: "\n").compactMap {
                    (try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["name"] as? String
                }
            }
            #expect(try listed().contains(name))
            try await AuthEmail.withMail { mail in
                let username = "renamed" + UUID().uuidString.prefix(6), email = "\(username)@example.com"
                let signed = try await app.send("POST", "/users", ["username": username, "password": "pw-1-x", "email": email])
                #expect(signed.status == 201, "\(signed.text)")
                _ = try await mail.waitForMessage(to: email, containing: "Please verify your e-mail for \(name)")
                let renamed = name + "Too"
                let answer = try TestStack.output(["app", "rename", name, renamed])
                #expect((try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])?["name"] as? String == renamed,
                        "\(answer)")
                #expect(try listed().contains(renamed) && !listed().contains(name))
                #expect(try await app.send("POST", "/requestPasswordReset", ["email": email]).status == 200)
                _ = try await mail.waitForMessage(to: email, containing: "Password Reset for \(renamed)")
                try TestStack.control(["app", "delete", renamed, "--yes"])
            }
            #expect(try await app.send("GET", "/classes/Cat").status == 403, "deleted")
        }

        /// The dashboard's Analytics for an app: its requests, counted apart from the stack app's.
        @Test func anAppsRequestCountsAreItsOwn() async throws {
            let app = try await Self.create("Counted")
            let cls = PostsHTTP.uniqueClass("Counted")
            for index in 0..<3 { #expect(try await app.send("GET", "/classes/\(cls)/missing\(index)").status == 404) }
            func counts(_ reply: Reply) -> Double {
                ((reply.json?["results"] as? [[String: Any]]) ?? [])
                    .filter { $0["route"] as? String == "GET /classes/:className/:objectId" && $0["status"] as? Double == 404 }
                    .reduce(0) { $0 + (($1["count"] as? Double) ?? 0) }
            }
            var counted = 0.0
            let deadline = ContinuousClock.now + .seconds(30)
            repeat {
                try await Task.sleep(for: .milliseconds(300))
                counted = counts(try await app.send("GET", "/analytics/requests", master: true))
            } while counted < 3 && ContinuousClock.now < deadline
            #expect(counted == 3, "the app's three 404 gets, and nothing of the stack app's")
            let other = try await Self.create("Uncounted")
            #expect(counts(try await other.send("GET", "/analytics/requests", master: true)) == 0)
            try await Self.delete(app)
            try await Self.delete(other)
        }

        /// An app's `/scriptlog` has the lines of its own requests, and the stack's app's has none of them: the
        /// gateway's access line and the lines of the services that worked for it are kept by its app.
        @Test func anAppsScriptLogHasItsOwnLines() async throws {
            let app = try await Self.create("Logged")
            let cls = PostsHTTP.uniqueClass("Logged")
            let (mine, stacks) = ("app\(UInt32.random(in: 0...UInt32.max))", "own\(UInt32.random(in: 0...UInt32.max))")
            #expect(try await app.send("GET", "/classes/\(cls)/\(mine)").status == 404)
            #expect(try await PostsHTTP.send("GET", "/classes/\(cls)/\(stacks)").status == 404)
            func urls(_ reply: Reply) -> [String] {
                #expect(reply.status == 200, "\(reply.text)")
                let entries = (try? JSONSerialization.jsonObject(with: reply.body)) as? [[String: Any]] ?? []
                return entries.compactMap { $0["url"] as? String }
            }
            let appLines = urls(try await PostsHTTP.send("GET", "/scriptlog", query: ["size": "1000"], headers: [
                "X-Parse-Application-Id": app.id, "X-Parse-Master-Key": app.masterKey,
            ]))
            #expect(appLines.contains { $0.hasSuffix("/\(mine)") }, "\(appLines.prefix(5))")
            #expect(!appLines.contains { $0.hasSuffix("/\(stacks)") })
            let stackLines = urls(try await PostsHTTP.send("GET", "/scriptlog", master: true, query: ["size": "1000"]))
            #expect(stackLines.contains { $0.hasSuffix("/\(stacks)") })
            #expect(!stackLines.contains { $0.hasSuffix("/\(mine)") })
            try await Self.delete(app)
        }

        /// An app's pushes go to its own endpoints, and reach only its installations; without endpoints they fail.
        @Test func anAppsPushesGoToItsOwnEndpoints() async throws {
            let app = try await Self.create("Push")
            let receiver = try PushReceiver()
            let bad = try await Self.admin("PUT", "/\(app.name)/push", ["endpoints": "ios=ftp://nowhere"])
            #expect(bad.status == 400 && bad.code == 107, "\(bad.text)")
            let channel = "news" + UUID().uuidString.prefix(6)
            func install(_ send: (String, String, Any?) async throws -> Reply) async throws {
                let reply = try await send("POST", "/installations", ["installationId": UUID().uuidString, "deviceToken": "tok-\(UUID())",
                                                                      "deviceType": "android", "channels": [channel]])
                #expect(reply.status == 201, "\(reply.text)")
            }
            try await install { try await app.send($0, $1, $2) }
            try await install { try await PostsHTTP.send($0, $1, $2) }
            func push() async throws -> [String: Any] {
                let reply = try await app.send("POST", "/push", ["channels": [channel], "data": ["alert": "Purr"]], master: true)
                let id = try #require(reply.header("X-Parse-Push-Status-Id"), "\(reply.text)")
                let deadline = ContinuousClock.now + .seconds(60)
                while true {
                    let status = try #require(try await app.send("GET", "/classes/_PushStatus/\(id)", master: true).json)
                    if !["pending", "scheduled", "running"].contains(status["status"] as? String ?? "") || ContinuousClock.now > deadline {
                        return status.merging(["id": id]) { $1 }
                    }
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
            let nowhere = try await push()
            #expect(nowhere["numSent"] as? Int == 0 && nowhere["numFailed"] as? Int == 1, "no endpoints: \(nowhere)")
            let set = try await Self.admin("PUT", "/\(app.name)/push", ["endpoints": "*=\(receiver.url)"])
            #expect(set.status == 200 && set.json?["pushEndpoints"] as? String == "*=\(receiver.url)", "\(set.text)")
            let sent = try await push()
            #expect(sent["numSent"] as? Int == 1 && sent["numFailed"] as? Int == 0, "\(sent)")
            #expect(receiver.notifications(of: try #require(sent["id"] as? String)).count == 1, "the app's one installation")
            await receiver.stop()
            try await Self.delete(app)
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
            // Its requests and commands count under its id, beside the stack app's series.
            let gateway = try await MetricsScrape.of("gateway")
            #expect(gateway.sum("parse_app_http_requests_total", ["app": app.id, "status": "201"]) == 1, "\(gateway.series("parse_app_http_requests_total"))")
            let posts = try await MetricsScrape.of("posts")
            #expect(posts.sum("parse_app_commands_total", ["app": app.id, "outcome": "ok"]) >= 1)

            let unconfirmed = try await Self.admin("DELETE", "/\(app.name)")
            #expect(unconfirmed.status == 400, "\(unconfirmed.text)")
            #expect(try await app.send("GET", "/classes/\(cls)").status == 200)
            let live = try LiveQueryClient()
            try live.send(["op": "connect", "applicationId": app.id, "restAPIKey": app.restKey])
            #expect(try live.receive()?["op"] as? String == "connected")
            try await Self.delete(app)
            #expect(try live.command("recv 5")["closed"] as? Int == 1001, "a deleted app's LiveQuery clients are let go")
            let refused = try await app.send("GET", "/classes/\(cls)", master: true)
            #expect(refused.status == 403, "\(refused.text)")
            #expect(try VotesAPI.sql("postgres", databases).first == "0")
            #expect(try await Self.admin("DELETE", "/\(app.name)?confirm=\(app.name)").status == 404)
        }

        /// A deletion that a service could not finish leaves the app deleted for its clients, and deleting it again
        /// drops what is left.
        @Test func anInterruptedDeletionIsFinishedByDeletingAgain() async throws {
            let app = try await Self.create("Half")
            let upload = try await HTTP.send("POST", "/files/half.txt", headers: [
                "X-Parse-Application-Id": app.id, "X-Parse-Master-Key": app.masterKey, "Content-Type": "text/plain",
            ], body: Data("half".utf8))
            #expect(upload.status == 201, "\(upload.text)")
            let databases = "SELECT count(*) FROM pg_database WHERE datname LIKE '%_app_\(app.id)'"
            try await TestStack.while(["stop-service", "files"], restartWith: ["start-service", "files"]) {
                let interrupted = try await Self.admin("DELETE", "/\(app.name)?confirm=\(app.name)")
                #expect(interrupted.status >= 500, "files did not answer its drop: \(interrupted.text)")
                #expect(try await app.send("GET", "/classes/Cat", master: true).status == 403, "no longer served")
                let listed = try await Self.admin("GET")
                #expect(!listed.text.contains(app.id), "no longer listed: \(listed.text)")
                #expect(Int(try VotesAPI.sql("postgres", databases).first ?? "") ?? 0 >= 1, "the files database is left")
            }
            try await Self.delete(app)
            #expect(try VotesAPI.sql("postgres", databases).first == "0")
            #expect(try await Self.admin("DELETE", "/\(app.name)?confirm=\(app.name)").status == 404)
        }
    }
}
