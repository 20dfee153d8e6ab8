import Foundation
import Testing

extension IntegrationSuite {
    /// The gateway restarted with parse-server 9's options the test stack otherwise turns off or leaves open:
    /// `enableSanitizedErrorResponse` (refusals say `Permission denied`), a `fileUpload.allowedFileUrlDomains` list
    /// (a `File` value naming another host is refused with 130 before anything is stored), a `routeAllowList`, and
    /// `readOnlyMasterKeyIps`.
    @Suite struct SanitizedErrors {
        private func withGateway(_ body: () async throws -> Void) async throws {
            try TestStack.control(["stop-service", "gateway"])
            try TestStack.control(["start-service", "gateway"], settings: [
                "PARSE_SERVER_ENABLE_SANITIZED_ERROR_RESPONSE": "true",
                "PARSE_SERVER_FILE_UPLOAD_ALLOWED_FILE_URL_DOMAINS": "cdn.example.com,*.files.example.org",
                "PARSE_SERVER_ROUTE_ALLOW_LIST": #"["classes/.*","batch","users(/.*)?","functions/whoami","schemas"]"#,
                "PARSE_SERVER_READ_ONLY_MASTER_KEY_IPS": "10.1.2.3",
            ])
            try await TestStack.run(body, thenAlways: {
                try TestStack.control(["stop-service", "gateway"])
                try TestStack.control(["start-service", "gateway"])
            })
        }

        @Test func refusalsSayPermissionDeniedAndFileURLsNameAllowedHosts() async throws {
            let cls = PostsHTTP.uniqueClass("Sanitized")
            let closed = try await PostsHTTP.send("POST", "/schemas/\(cls)", ["className": cls, "classLevelPermissions": [
                "find": [:], "get": [:], "create": [:], "update": [:], "delete": [:], "count": [:], "addField": [:],
            ] as [String: Any]], master: true)
            #expect(closed.status == 200, "\(closed.text)")
            try await withGateway {
                // A class-level permission (posts), a master-only route (posts), a batch item, and a user's field (auth).
                let create = try await PostsHTTP.send("POST", "/classes/\(cls)", ["n": 1])
                #expect(create.status == 400 && create.json?["code"] as? Int == 119, "\(create.text)")
                #expect(create.json?["error"] as? String == "Permission denied")
                let schemas = try await PostsHTTP.send("GET", "/schemas")
                #expect(schemas.status == 403 && schemas.text == #"{"error":"Permission denied"}"#, "\(schemas.text)")
                let batch = try await PostsHTTP.send("POST", "/batch", ["requests": [
                    ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": 2]],
                ]])
                let item = (try JSONSerialization.jsonObject(with: batch.body) as? [[String: Any]])?.first?["error"] as? [String: Any]
                #expect(item?["code"] as? Int == 119 && item?["error"] as? String == "Permission denied", "\(batch.text)")
                let user = try await AuthAPI.signUp("sanitized")
                let verify = try await AuthAPI.send("PUT", "/users/\(user.id)", ["emailVerified": true], token: user.token)
                #expect(verify.json?["code"] as? Int == 119 && verify.json?["error"] as? String == "Permission denied",
                        "\(verify.text)")
                // Other errors keep their words.
                let missing = try await PostsHTTP.send("GET", "/classes/\(cls)x/nothing")
                #expect(missing.json?["error"] as? String == "Object not found.", "\(missing.text)")

                let open = PostsHTTP.uniqueClass("FileURL")
                func file(_ url: String) -> [String: Any] { ["__type": "File", "name": "a.txt", "url": url] }
                let allowed = try await PostsHTTP.send("POST", "/classes/\(open)", [
                    "f": file("https://cdn.example.com/a.txt"), "list": [file("https://eu.files.example.org/b.txt")],
                ])
                #expect(allowed.status == 201, "\(allowed.text)")
                for (url, message) in [("http://169.254.169.254/latest", "File URL domain '169.254.169.254' is not allowed."),
                                       ("https://example.com.evil.test/a", "File URL domain 'example.com.evil.test' is not allowed."),
                                       ("not a url", "Invalid file URL.")] {
                    let refused = try await PostsHTTP.send("POST", "/classes/\(open)", ["nested": ["deep": [file(url)]]])
                    #expect(refused.status == 400 && refused.json?["code"] as? Int == 130, "\(refused.text)")
                    #expect(refused.json?["error"] as? String == message)
                }
                let asParameter = try await PostsHTTP.send("POST", "/functions/whoami", ["f": file("http://internal.test/x")])
                #expect(asParameter.json?["code"] as? Int == 130, "\(asParameter.text)")
                let count = try await PostsHTTP.send("GET", "/classes/\(open)", query: ["count": "1", "limit": "0"])
                #expect(count.json?["count"] as? Int == 1, "\(count.text)")

                // The allow list: other routes and batch items are refused to clients, not to the master key.
                for (method, path) in [("GET", "/roles"), ("POST", "/functions/echo"), ("GET", "/config")] {
                    let refused = try await PostsHTTP.send(method, path, method == "POST" ? [:] as [String: Any] : nil)
                    #expect(refused.status == 403 && refused.json?["code"] as? Int == 119, "\(path): \(refused.text)")
                    #expect(refused.json?["error"] as? String == "Permission denied")
                }
                let refusedItem = try await PostsHTTP.send("POST", "/batch", ["requests": [
                    ["method": "GET", "path": "/parse/classes/\(open)"], ["method": "GET", "path": "/parse/roles"],
                ]])
                #expect(refusedItem.status == 403, "\(refusedItem.text)")
                #expect(try await PostsHTTP.send("GET", "/config", master: true).status == 200)
                #expect(try await PostsHTTP.send("POST", "/functions/whoami", [:] as [String: Any]).status == 200)
                // The read-only master key from an address outside its list is no key: refused as parse-server does.
                let readOnly = try await HTTP.send("GET", "/classes/\(open)", headers: AuthQuery.headers(.readOnlyMaster))
                #expect(readOnly.status == 403 && readOnly.text == #"{"error":"unauthorized"}"#, "\(readOnly.text)")
            }
        }
    }
}
