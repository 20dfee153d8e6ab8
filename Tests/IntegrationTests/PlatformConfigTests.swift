import Foundation
import Testing

extension IntegrationSuite {
    /// `GET`/`PUT /config`. Every test uses keys of its own: the config is one row for the whole app.
    @Suite struct PlatformConfig {
        static func key(_ prefix: String) -> String { PostsHTTP.uniqueClass(prefix) }

        static func params(master: Bool = false) async throws -> [String: Any] {
            let reply = try await PostsHTTP.send("GET", "/config", master: master)
            #expect(reply.status == 200)
            return try #require(reply.json?["params"] as? [String: Any])
        }

        @Test func aWriteWithTheMasterKeyIsReadByAnyone() async throws {
            let key = Self.key("greeting")
            let reply = try await PostsHTTP.send("PUT", "/config", ["params": [key: "hello", key + "n": 3]], master: true)
            #expect(reply.status == 200)
            #expect(reply.text == #"{"result":true}"#)
            let params = try await Self.params()
            #expect(params[key] as? String == "hello")
            #expect(params[key + "n"] as? Int == 3)
            let full = try #require(try await PostsHTTP.send("GET", "/config").json)
            #expect((full["masterKeyOnly"] as? [String: Bool])?[key] == false)
        }

        @Test func masterKeyOnlyParamsAreHiddenFromClients() async throws {
            let secret = Self.key("secret"), open = Self.key("open")
            let reply = try await PostsHTTP.send("PUT", "/config", [
                "params": [secret: "s3", open: "o"], "masterKeyOnly": [secret: true],
            ], master: true)
            #expect(reply.status == 200)
            let client = try #require(try await PostsHTTP.send("GET", "/config").json)
            let clientParams = try #require(client["params"] as? [String: Any])
            #expect(clientParams[secret] == nil)
            #expect(clientParams[open] as? String == "o")
            #expect((client["masterKeyOnly"] as? [String: Bool])?[secret] == nil)
            let master = try await Self.params(master: true)
            #expect(master[secret] as? String == "s3")
        }

        @Test func deleteRemovesOneParamAndKeepsTheOthers() async throws {
            let gone = Self.key("gone"), kept = Self.key("kept")
            _ = try await PostsHTTP.send("PUT", "/config", ["params": [gone: 1, kept: ["a": [1, 2]]]], master: true)
            let reply = try await PostsHTTP.send("PUT", "/config", ["params": [gone: ["__op": "Delete"]]], master: true)
            #expect(reply.status == 200)
            let params = try await Self.params()
            #expect(params[gone] == nil)
            #expect((params[kept] as? [String: [Int]])?["a"] == [1, 2])
        }

        @Test func writesWithoutTheMasterKeyAreRefusedAndChangeNothing() async throws {
            let key = Self.key("guarded")
            _ = try await PostsHTTP.send("PUT", "/config", ["params": [key: "before"]], master: true)
            let client = try await PostsHTTP.send("PUT", "/config", ["params": [key: "after"]])
            #expect(client.status == 403)
            #expect(client.text == #"{"error":"unauthorized: master key is required"}"#)
            var headers = HTTP.appHeaders
            headers["X-Parse-Master-Key"] = TestStack.readOnlyMasterKey
            headers["Content-Type"] = "application/json"
            let readOnly = try await HTTP.send("PUT", "/config", headers: headers,
                                               body: Data(#"{"params":{"\#(key)":"after"}}"#.utf8))
            #expect(readOnly.status == 400)
            #expect(readOnly.code == 119)
            #expect(readOnly.error == "read-only masterKey isn't allowed to update the config.")
            #expect(try await Self.params()[key] as? String == "before")
        }

        @Test(arguments: [#"{"params":"x"}"#, #"{"params":{"a.b":1}}"#, #"{"masterKeyOnly":[true]}"#, "[1]"])
        func malformedWritesAreParseErrors(body: String) async throws {
            let reply = try await PostsHTTP.send("PUT", "/config", body, master: true)
            #expect(reply.status == 400)
            #expect([105, 107].contains(reply.code ?? 0), "\(reply.text)")
        }

        @Test func theRowIsAClassOnlyTheMasterKeyReaches() async throws {
            _ = try await PostsHTTP.send("PUT", "/config", ["params": [Self.key("row"): true]], master: true)
            let master = try await PostsHTTP.send("GET", "/classes/_GlobalConfig", master: true)
            #expect(PostsHTTP.results(master).first?["objectId"] as? String == "1")
            let client = try await PostsHTTP.send("GET", "/classes/_GlobalConfig")
            #expect(client.status == 400 && client.code == 119)
            #expect(client.error == "Clients aren't allowed to perform the find operation on the _GlobalConfig collection.")
        }
    }
}
