import Contracts
import Foundation
import ParseWire
import Storage

/// `session.resolve.v1`: the gateway sends the token it got in the command's identity (payload `Empty`) and
/// receives the identity every command of that request then carries: user id, the `role:<name>` entries of
/// every role held (nested roles included), and the token.
struct SessionResolveHandler: Sendable {
    let database: any Database
    let sessions: SessionStore

    func resolve(_ command: Command<Empty>) async throws -> Identity {
        guard let token = command.identity.sessionToken, !token.isEmpty, token.utf8.count <= 256,
              let session = try await sessions.find(token: token, in: database) else {
            throw ParseError(.invalidSessionToken, "Invalid session token")
        }
        if let expiresAt = session.expiresAt, expiresAt < Date() {
            throw ParseError(.invalidSessionToken, "Session token is expired.")
        }
        let roles = try await UserStore(pool: database).roleEntries(userId: session.userId)
        return Identity(userId: session.userId, roles: roles, sessionToken: token)
    }
}
