import Contracts
import Foundation
import ParseWire
import Storage

/// The account routes that only open a session: `loginAs`, `upgradeToRevocableSession`.
struct AccountRequestsHandler: Sendable {
    let pool: PostgresPool
    let sessions: SessionStore

    /// `POST /loginAs {"userId"}` with the master key: a session for that user.
    func loginAs(_ request: AuthRequest) async throws -> RESTResponse {
        guard request.isMaster else { throw ParseError(.operationForbidden, "master key is required") }
        let body = try request.body()
        guard let userId = body["userId"]?.stringValue, !userId.isEmpty else {
            throw ParseError(Code162.userIdMissing, "userId must not be empty, null, or undefined")
        }
        guard let user = try await UserStore(pool: pool).find(id: userId) else {
            throw ParseError(.objectNotFound, "user not found")
        }
        let sessions = self.sessions
        let session = try await pool.transaction { connection in
            try await sessions.create(userId: userId, action: "login", authProvider: "masterkey", on: connection)
        }
        return AuthResponses.ok(user.json(showEmail: true, sessionToken: session.token))
    }

    /// `POST /upgradeToRevocableSession`: every session here is revocable already, so, as parse-server does for a
    /// revocable token, the caller gets a new session (`createdWith.action` `upgrade`) and keeps the old one.
    func upgradeToRevocableSession(_ request: AuthRequest) async throws -> RESTResponse {
        try request.requireWritable("create")
        guard let userId = request.identity.userId else { throw ParseError(.objectNotFound, "invalid session") }
        let sessions = self.sessions
        let session = try await pool.transaction { connection in
            try await sessions.create(userId: userId, action: "upgrade", authProvider: nil, on: connection)
        }
        return AuthResponses.ok([
            "sessionToken": .string(session.token), "user": AuthResponses.pointer("_User", userId),
            "createdWith": .object(["action": .string("upgrade")]), "expiresAt": AuthResponses.typedDate(session.expiresAt),
        ])
    }

    private enum Code162 {
        static let userIdMissing = ParseError.Code(rawValue: 162)
    }
}
