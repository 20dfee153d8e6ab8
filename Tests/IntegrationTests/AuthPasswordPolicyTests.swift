import Foundation
import Testing

extension IntegrationSuite {
    /// parse-server's `passwordPolicy` (`PARSE_SERVER_PASSWORD_POLICY`) on signup, password changes and login.
    @Suite struct AuthPasswordPolicy {
        static let policy = #"{"validatorPattern":"^(?=.*[0-9]).{8,}$","doNotAllowUsername":true,"maxPasswordHistory":2,"maxPasswordAge":1}"#

        private func withPolicy(_ policy: String, _ body: () async throws -> Void) async throws {
            try TestStack.control(["stop-service", "auth"])
            try TestStack.control(["start-service", "auth"], settings: ["PARSE_SERVER_PASSWORD_POLICY": policy])
            try await TestStack.run(body, thenAlways: {
                try TestStack.control(["stop-service", "auth"])
                try TestStack.control(["start-service", "auth"])
            })
        }

        @Test func strengthHistoryAndAge() async throws {
            try await withPolicy(Self.policy) {
                let weak = try await AuthAPI.send("POST", "/users", ["username": AuthAPI.uniqueName("weak"), "password": "short1"])
                #expect(AuthAPI.error(weak) == (142, "Password does not meet the Password Policy requirements."))
                let name = AuthAPI.uniqueName("policy")
                let withName = try await AuthAPI.send("POST", "/users", ["username": name, "password": "x\(name)9"])
                #expect(AuthAPI.error(withName) == (142, "Password cannot contain your username."))

                let signup = try await AuthAPI.send("POST", "/users", ["username": name, "password": "first-pass-1"])
                #expect(signup.status == 201)
                let id = try #require(signup.json?["objectId"] as? String)
                var token = try #require(signup.json?["sessionToken"] as? String)
                func change(_ password: String) async throws -> Reply {
                    let reply = try await AuthAPI.send("PUT", "/users/\(id)", ["password": password], token: token)
                    if let fresh = reply.json?["sessionToken"] as? String { token = fresh }
                    return reply
                }
                let repeatError = (142, "New password should not be the same as last 2 passwords.")
                #expect(AuthAPI.error(try await change("first-pass-1")) == repeatError)
                #expect(AuthAPI.error(try await change("\(name)-2")) == (142, "Password cannot contain your username."))
                #expect(AuthAPI.error(try await change("weak")) == (142, "Password does not meet the Password Policy requirements."))
                #expect(try await change("second-pass-2").status == 200)
                #expect(AuthAPI.error(try await change("first-pass-1")) == repeatError)
                #expect(try await change("third-pass-3").status == 200)
                // Two passwords later the first one is allowed again.
                #expect(try await change("first-pass-1").status == 200)
                #expect(try await AuthAPI.login(name, "first-pass-1").status == 200)

                try AuthAPI.authDatabase("UPDATE users SET password_changed_at = now() - interval '2 days' WHERE id = '\(id)'")
                let expired = try await AuthAPI.login(name, "first-pass-1")
                #expect(expired.status == 404)
                #expect(AuthAPI.error(expired) == (101, "Your password has expired. Please reset your password."))
                // A password set before expiry was switched on starts its clock at the next login.
                try AuthAPI.authDatabase("UPDATE users SET password_changed_at = NULL WHERE id = '\(id)'")
                #expect(try await AuthAPI.login(name, "first-pass-1").status == 200)
                #expect(try await AuthAPI.login(name, "first-pass-1").status == 200)
            }
        }
    }
}
