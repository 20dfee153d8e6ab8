import Foundation
import Testing

extension IntegrationSuite {
    /// What the auth database holds, checked with SQL that fails (psql exits non-zero) when the claim is false.
    @Suite struct AuthStorage {
        private func assertSQL(_ condition: String) throws {
            try AuthAPI.authDatabase("DO $$ BEGIN IF NOT (\(condition)) THEN RAISE EXCEPTION 'assertion failed'; END IF; END $$")
        }

        @Test func passwordsAreBcryptAndTokensAreDigests() async throws {
            let user = try await AuthAPI.signUp("stored")
            try assertSQL("(SELECT password_hash LIKE '$2b$10$%' AND length(password_hash) = 60 FROM users WHERE id = '\(user.id)')")
            try assertSQL("NOT EXISTS (SELECT 1 FROM users WHERE id = '\(user.id)' AND (users::text LIKE '%\(user.password)%'))")
            try assertSQL("NOT EXISTS (SELECT 1 FROM sessions WHERE sessions::text LIKE '%\(user.token.dropFirst(2))%')")
            try assertSQL("EXISTS (SELECT 1 FROM sessions WHERE user_id = '\(user.id)' AND token_digest = sha256('\(user.token)'::bytea))")
        }

        @Test func eventsGoThroughTheOutbox() async throws {
            let user = try await AuthAPI.signUp("events")
            #expect(try await AuthAPI.send("POST", "/logout", token: user.token).status == 200)
            for key in ["user.signed-up", "session.created", "session.revoked"] {
                try assertSQL("EXISTS (SELECT 1 FROM outbox WHERE routing_key = '\(key)' AND payload->'data'->>'userId' = '\(user.id)' AND payload->>'specversion' = '1.0')")
            }
        }

        @Test func expiredSessionsAreRefused() async throws {
            let user = try await AuthAPI.signUp("expired")
            try AuthAPI.authDatabase("UPDATE sessions SET expires_at = now() - interval '1 day' WHERE user_id = '\(user.id)'")
            let reply = try await AuthAPI.send("GET", "/users/me", token: user.token)
            #expect(reply.status == 400)
            #expect(AuthAPI.error(reply) == (209, "Session token is expired."))
        }
    }
}
