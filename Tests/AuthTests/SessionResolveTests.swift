import Contracts
import Foundation
import ParseWire
import Storage
import TestDoubles
import Testing
@testable import AuthCore

/// `session.resolve.v1` on a scripted database: which statements it sends for a token, and how what they answer
/// becomes the identity or parse-server's error.
@Suite struct SessionResolveTests {
    private static let token = "r:0123456789abcdef0123456789abcdef"

    private static func handler(_ database: ScriptedDatabase) -> SessionResolveHandler {
        SessionResolveHandler(database: database, sessions: SessionStore(settings: .defaults))
    }

    private static func command(token: String?) -> Command<Empty> {
        Command(type: ResolveSession.type, requestId: "req-1", identity: Identity(sessionToken: token),
                payload: Empty())
    }

    private static func sessionRow(expiresAt: String?) -> [String: String?] {
        ["id": "s1", "token_digest": SessionTokenDigest.digest(of: token).postgresText, "user_id": "u1",
         "created_with": #"{"action":"login"}"#, "installation_id": nil, "expires_at": expiresAt, "fields": "{}",
         "created_at": "2026-11-30 10:00:00+00", "updated_at": "2026-11-30 10:00:00+00"]
    }

    @Test func aLiveSessionResolvesToItsUserWithTheRolesTheUserHolds() async throws {
        let database = ScriptedDatabase()
        database.expect("FROM sessions WHERE token_digest = $1", rows: [Self.sessionRow(expiresAt: "2999-01-01 00:00:00+00")])
        database.expect("WITH RECURSIVE held", rows: [["name": "admins"], ["name": "editors"]])
        let identity = try await Self.handler(database).resolve(Self.command(token: Self.token))
        #expect(identity.userId == "u1")
        #expect(identity.roles == ["role:admins", "role:editors"])
        #expect(identity.sessionToken == Self.token)
        // The token is looked up by its digest, never sent as it is; the roles by the session's user.
        #expect(database.statements.map(\.parameters) == [[SessionTokenDigest.digest(of: Self.token).postgresText], ["u1"]])
        #expect(database.isDone)
    }

    @Test func anUnknownTokenIsParseServersInvalidSessionTokenAndNoRolesAreRead() async throws {
        let database = ScriptedDatabase()
        database.expect("FROM sessions WHERE token_digest = $1", rows: [])
        await #expect(throws: ParseError(.invalidSessionToken, "Invalid session token")) {
            try await Self.handler(database).resolve(Self.command(token: Self.token))
        }
        #expect(database.statements.count == 1)
    }

    @Test func anExpiredSessionIsRefusedWithParseServersMessage() async throws {
        let database = ScriptedDatabase()
        database.expect("FROM sessions WHERE token_digest = $1", rows: [Self.sessionRow(expiresAt: "2020-01-01 00:00:00+00")])
        await #expect(throws: ParseError(.invalidSessionToken, "Session token is expired.")) {
            try await Self.handler(database).resolve(Self.command(token: Self.token))
        }
        #expect(database.statements.count == 1)
    }

    @Test func aMissingOrOversizedTokenIsRefusedWithoutAStatement() async throws {
        for token in [nil, "", String(repeating: "t", count: 257)] {
            let database = ScriptedDatabase()
            await #expect(throws: ParseError(.invalidSessionToken, "Invalid session token")) {
                try await Self.handler(database).resolve(Self.command(token: token))
            }
            #expect(database.statements.isEmpty)
        }
    }
}
