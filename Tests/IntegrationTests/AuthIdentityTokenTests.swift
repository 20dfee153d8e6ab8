import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

extension IntegrationSuite {
    /// Providers that verify: Sign in with Apple and Google (signed identity tokens checked against the keys the
    /// test publishes), GitHub and Facebook (their APIs, played by a local server).
    @Suite struct AuthIdentityTokens {
        /// Makes an RSA and a P-256 key, publishes them as a JWKS, signs the tokens the tests use (Python's
        /// `cryptography`, a Debian package), and writes the fake GitHub and Facebook answers.
        static let script = #"""
        import json, sys, time, base64
        from cryptography.hazmat.primitives.asymmetric import rsa, ec, padding
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
        d = sys.argv[1]
        def b64(b): return base64.urlsafe_b64encode(b).rstrip(b'=').decode()
        def num(n, size=None): return b64(n.to_bytes(size or (n.bit_length() + 7) // 8, 'big'))
        rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        ec_key = ec.generate_private_key(ec.SECP256R1())
        pn = rsa_key.public_key().public_numbers(); en = ec_key.public_key().public_numbers()
        json.dump({"keys": [{"kty": "RSA", "kid": "rsa1", "alg": "RS256", "use": "sig", "n": num(pn.n), "e": num(pn.e)},
                            {"kty": "EC", "kid": "ec1", "alg": "ES256", "crv": "P-256", "x": num(en.x, 32), "y": num(en.y, 32)}]},
                  open(d + "/jwks.json", "w"))
        def token(claims, kid="rsa1", key=None, alg="RS256"):
            head = b64(json.dumps({"alg": alg, "kid": kid, "typ": "JWT"}).encode())
            body = b64(json.dumps(claims).encode())
            data = (head + "." + body).encode()
            if alg == "RS256":
                sig = (key or rsa_key).sign(data, padding.PKCS1v15(), hashes.SHA256())
            else:
                r, s = decode_dss_signature(ec_key.sign(data, ec.ECDSA(hashes.SHA256())))
                sig = r.to_bytes(32, 'big') + s.to_bytes(32, 'big')
            return head + "." + body + "." + b64(sig)
        now = int(time.time())
        apple = {"iss": "https://appleid.apple.com", "aud": "com.example.app", "sub": "apple-sub-1", "exp": now + 3600, "iat": now}
        google = {"iss": "https://accounts.google.com", "aud": "google-client", "sub": "google-sub-1", "exp": now + 3600, "iat": now}
        json.dump({"apple": token(apple), "badSignature": token(apple, key=other),
                   "wrongAudience": token(dict(apple, aud="com.other.app")), "expired": token(dict(apple, exp=now - 60)),
                   "wrongIssuer": token(dict(apple, iss="https://evil.example.com")), "unknownKey": token(apple, kid="nope"),
                   "google": token(google, kid="ec1", alg="ES256")}, open(d + "/tokens.json", "w"))
        json.dump({"id": 4242, "login": "octocat"}, open(d + "/user", "w"))
        json.dump({"id": "fb-77"}, open(d + "/me", "w"))
        json.dump({"id": "app-1"}, open(d + "/app", "w"))
        """#

        private func withProviders(_ body: ([String: String]) async throws -> Void) async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("idp-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try Spawned.run(["/usr/bin/python3", "-c", Self.script, directory.path]) == 0)
            let tokens = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("tokens.json"))) as? [String: String])
            let port = (URLComponents(string: TestStack.serverURL)?.port ?? 21337) + 191
            let server = try Spawned.start(["/usr/bin/python3", "-m", "http.server", String(port), "--bind", "127.0.0.1",
                                            "--directory", directory.path], environment: ["PATH": "/usr/bin:/bin"])
            defer { kill(server, SIGKILL); _ = Spawned.wait(server) }
            let base = "http://127.0.0.1:\(port)"
            for _ in 0..<100 where (try? Browser.get("\(base)/jwks.json"))?.status != 200 { try await Task.sleep(for: .milliseconds(100)) }
            let providers = """
                {"apple":{"clientId":"com.example.app","jwksUrl":"\(base)/jwks.json"},
                 "google":{"clientId":["google-client"],"jwksUrl":"\(base)/jwks.json"},
                 "github":{"apiURL":"\(base)"},"facebook":{"graphURL":"\(base)","appIds":["app-1"]}}
                """
            try TestStack.control(["stop-service", "auth"])
            try TestStack.control(["start-service", "auth"], settings: ["PARSE_SERVER_AUTH_PROVIDERS": providers])
            try await TestStack.run({ try await body(tokens) }, thenAlways: {
                try TestStack.control(["stop-service", "auth"])
                try TestStack.control(["start-service", "auth"])
            })
        }

        private func logIn(_ provider: String, _ data: [String: Any]) async throws -> Reply {
            try await AuthAPI.send("POST", "/users", ["authData": [provider: data]])
        }

        @Test func signedIdentityTokensAreVerified() async throws {
            try await withProviders { tokens in
                let first = try await logIn("apple", ["id": "apple-sub-1", "token": tokens["apple"]!])
                #expect(first.status == 201, "\(first.text)")
                let again = try await logIn("apple", ["id": "apple-sub-1", "token": tokens["apple"]!])
                #expect(again.status == 200)
                #expect(again.json?["objectId"] as? String == first.json?["objectId"] as? String)
                let session = try await AuthAPI.send("GET", "/sessions/me", token: again.json?["sessionToken"] as? String)
                #expect((session.json?["createdWith"] as? [String: String])?["authProvider"] == "apple")

                let refusals: [(String, String)] = [
                    ("badSignature", "invalid signature"), ("wrongAudience", "jwt audience invalid. expected: com.example.app"),
                    ("expired", "jwt expired"),
                    ("wrongIssuer", "id token not issued by correct OpenID provider - expected: https://appleid.apple.com | from: https://evil.example.com"),
                    ("unknownKey", "Unable to find matching key for Key ID: nope"),
                ]
                for (name, message) in refusals {
                    let reply = try await logIn("apple", ["id": "apple-sub-1", "token": tokens[name]!])
                    #expect(reply.status == 404, "\(name)")
                    #expect(AuthAPI.error(reply) == (101, message), "\(name): \(reply.text)")
                }
                let otherUser = try await logIn("apple", ["id": "someone-else", "token": tokens["apple"]!])
                #expect(AuthAPI.error(otherUser) == (101, "auth data is invalid for this user."))
                #expect(AuthAPI.error(try await logIn("apple", ["id": "apple-sub-1"])) == (101, "id token is invalid for this user."))
                #expect(AuthAPI.error(try await logIn("apple", ["id": "apple-sub-1", "token": "not.a.jwt"])) == (101, "provided token does not decode as JWT"))

                // ES256, as Google's tokens may be signed, with the token where the Google SDKs put it.
                let google = try await logIn("google", ["id": "google-sub-1", "id_token": tokens["google"]!])
                #expect(google.status == 201, "\(google.text)")
                let forged = try await logIn("google", ["id": "google-sub-1", "id_token": tokens["apple"]!])
                #expect(AuthAPI.error(forged).0 == 101)

                // Linking: a signed-in user adds Apple; a second user cannot take the same Apple id.
                let user = try await AuthAPI.signUp("applelink")
                let link = try await AuthAPI.send("PUT", "/users/\(user.id)", ["authData": ["apple": ["id": "apple-sub-1", "token": tokens["apple"]!]]],
                                                  token: user.token)
                #expect(AuthAPI.error(link) == (208, "this auth is already used"))
            }
        }

        @Test func providersThatCallTheirAPI() async throws {
            try await withProviders { _ in
                let github = try await logIn("github", ["id": "4242", "access_token": "gho_token"])
                #expect(github.status == 201, "\(github.text)")
                #expect(AuthAPI.error(try await logIn("github", ["id": "1", "access_token": "gho_token"])) == (101, "Github auth is invalid for this user."))
                let facebook = try await logIn("facebook", ["id": "fb-77", "access_token": "EAAB"])
                #expect(facebook.status == 201, "\(facebook.text)")
                #expect(AuthAPI.error(try await logIn("facebook", ["id": "fb-1", "access_token": "EAAB"])) == (101, "Facebook auth is invalid for this user."))
                // A provider's data is private to its user.
                let me = try await AuthAPI.send("GET", "/users/me", token: facebook.json?["sessionToken"] as? String)
                #expect((me.json?["authData"] as? [String: Any])?["facebook"] != nil)
                let stranger = try await AuthAPI.signUp("stranger")
                let id = try #require(facebook.json?["objectId"] as? String)
                #expect(try await AuthAPI.send("GET", "/users/\(id)", token: stranger.token).json?["authData"] == nil)
            }
        }
    }
}
