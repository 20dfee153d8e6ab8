import Foundation
import Testing

extension IntegrationSuite {
    /// The events the services write, checked against docs/events.yaml (AsyncAPI) by `Scripts/check_events.py`
    /// (jsonschema): one of each kind is made through the API, then every event the outboxes took meanwhile must
    /// match its message's schema, so the published contract and the code cannot drift apart unnoticed.
    @Suite struct EventContract {
        static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Scripts/check_events.py").path
        static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/events.yaml").path

        @Test func everyEventTheServicesWriteMatchesTheAsyncAPIDocument() async throws {
            let since = try #require(try VotesAPI.sql("parse_posts", "SELECT now()").first)
            // auth: a sign-up (user.signed-up, session.created), a login, a logout (session.revoked), a role.
            let user = try await AuthAPI.signUp("contract")
            let login = try await AuthAPI.login(user.username, user.password)
            let token = try #require(login.json?["sessionToken"] as? String)
            _ = try await AuthAPI.send("POST", "/logout", token: token)
            let role = try await AuthAPI.send("POST", "/roles", ["name": "Contract_\(UInt32.random(in: 0...UInt32.max))",
                                                                 "ACL": ["*": ["read": true]]], master: true)
            #expect(role.status == 201, "\(role.text)")
            // posts: an object created, updated, deleted; Config; an analytics event; a push.
            let className = PostsHTTP.uniqueClass("Contract")
            let created = try await PostsHTTP.send("POST", "/classes/\(className)", ["name": "a"], headers: ["X-Parse-Request-Id": "contract-\(UUID().uuidString)"])
            let id = try #require(created.json?["objectId"] as? String)
            _ = try await PostsHTTP.send("PUT", "/classes/\(className)/\(id)", ["name": "b"])
            _ = try await PostsHTTP.send("DELETE", "/classes/\(className)/\(id)")
            _ = try await PostsHTTP.send("PUT", "/config", ["params": ["contractKey": "v"]], master: true)
            _ = try await PostsHTTP.send("PUT", "/config", ["params": ["contractKey": ["__op": "Delete"]]], master: true)
            _ = try await PostsHTTP.send("POST", "/events/ContractOpened", ["dimensions": ["screen": "home"]],
                                         headers: ["X-Parse-Session-Token": user.token, "X-Parse-Installation-Id": "contract-install"])
            let channel = PostsHTTP.uniqueClass("contract")
            _ = try await PostsHTTP.send("POST", "/installations", ["installationId": UUID().uuidString, "deviceType": "android",
                                                                    "deviceToken": "tok-\(UUID().uuidString)", "channels": [channel],
                                                                    "timeZone": "Europe/Paris", "localeIdentifier": "fr-FR"])
            let push = try await PostsHTTP.send("POST", "/push", ["channels": [channel], "data": ["alert": "contract"]], master: true)
            #expect(push.status == 200)
            // files: stored, deleted.
            let stored = try await FilesAPI.store("contract.txt", Data("contract".utf8), contentType: "text/plain")
            _ = try await HTTP.send("DELETE", "/files/\(stored.name)", headers: FilesAPI.headers(master: true))
            // cloud: a webhook registered and removed (hooks.changed).
            let hook = "contractHook\(UInt32.random(in: 0...UInt32.max))"
            _ = try await PostsHTTP.send("POST", "/hooks/functions", ["functionName": hook, "url": "https://example.com/h"], master: true)
            _ = try await PostsHTTP.send("PUT", "/hooks/functions/\(hook)", ["__op": "Delete"], master: true)

            var events: [String] = []
            let deadline = ContinuousClock.now + .seconds(10)
            let expected = ["user.signed-up.v1", "session.created.v1", "session.revoked.v1", "role.changed.v1",
                            "object.created.v1", "object.updated.v1", "object.deleted.v1", "config.updated.v1",
                            "analytics.ContractOpened.v1", "push.requested.v1", "file.stored.v1", "file.deleted.v1",
                            "hooks.changed.v1"]
            repeat {
                events = []
                for database in ["parse_auth", "parse_posts", "parse_files", "parse_cloud"] {
                    events += try VotesAPI.sql(database, "SELECT payload::text FROM outbox WHERE created_at >= '\(since)' ORDER BY id")
                }
                let types = Set(events.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["type"] as? String })
                if Set(expected).isSubset(of: types) { break }
                try await Task.sleep(for: .milliseconds(200))
            } while ContinuousClock.now < deadline
            let input = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString).jsonl")
            try (events.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: input) }
            let status = try DashboardBrowser.run(["sh", "-c", "python3 '\(Self.script)' '\(Self.document)' \(expected.joined(separator: " ")) < '\(input.path)'"])
            #expect(status == 0, "an event does not match docs/events.yaml: see the output above")
        }
    }
}
