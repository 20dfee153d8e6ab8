import Contracts
import Foundation
import ParseWire
import Storage

/// `POST /users`: creates the user and its first session in one transaction.
struct SignupHandler: Sendable {
    let pool: PostgresPool
    let settings: AuthSettings
    let sessions: SessionStore

    func handle(_ request: AuthRequest) async throws -> RESTResponse {
        try request.requireWritable("create")
        let changes = try UserChanges(try request.body(), creating: true, isMaster: request.isMaster, settings: settings)
        guard let username = changes.username, let password = changes.password else {
            throw ParseError(.usernameMissing, "bad or missing username")
        }
        let users = UserStore(pool: pool)
        // Checked before hashing so a taken name costs no bcrypt round; the unique indexes settle races.
        try await users.checkUnique(username: username, email: changes.email)
        let passwordHash = try await PasswordHasher.hash(password)
        let id = ObjectId.make()
        let acl = ACLValidator.withOwnerAccess(changes.acl, userId: id)
        let now = Date.nowMillis
        let sessions = self.sessions
        let session: SessionStore.NewSession
        do {
            session = try await pool.transaction { connection in
                _ = try await connection.query("""
                    INSERT INTO users (id, username, email, email_verified, password_hash, acl, fields, created_at, updated_at)
                    VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8, $8)
                    """, [id, username, changes.email, changes.emailVerified,
                          passwordHash, acl.compactText, JSONValue.object(changes.set).compactText, now])
                try await AuthEvents.userSignedUp(id, username: username, at: now, on: connection)
                return try await sessions.create(userId: id, action: "signup", authProvider: "password", on: connection)
            }
        } catch {
            throw UserStore.uniquenessError(error)
        }
        return AuthResponses.created(
            ["objectId": .string(id), "createdAt": AuthResponses.date(now), "sessionToken": .string(session.token)],
            location: "\(request.serverURL)/users/\(id)")
    }
}
