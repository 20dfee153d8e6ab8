import Contracts
import Foundation
import ParseWire
import Runtime
import Storage

/// `POST /users`: creates the user and its first session in one transaction. With `authData` it signs up with
/// a provider, or logs in the user already linked to it (`SignupHandler+AuthData`).
struct SignupHandler: Sendable {
    let pool: PostgresPool
    let settings: AuthSettings
    let sessions: SessionStore
    let mailer: AccountMailer

    func handle(_ request: AuthRequest) async throws -> RESTResponse {
        try request.requireWritable("create")
        let changes = try UserChanges(try request.body(), creating: true, isMaster: request.isMaster, settings: settings)
        if let authData = changes.authData { return try await signUpOrLogIn(request, changes: changes, authData: authData) }
        guard let username = changes.username, changes.password != nil else {
            throw ParseError(.usernameMissing, "bad or missing username")
        }
        let (id, now, session) = try await create(changes, username: username, authData: nil, logger: request.logger,
                                                  afterSave: await UserTriggers(request: request).afterSave())
        var answer: [String: JSONValue] = ["objectId": .string(id), "createdAt": AuthResponses.date(now)]
        if let session { answer["sessionToken"] = .string(session.token) }
        return AuthResponses.created(answer, location: "\(request.serverURL)/users/\(id)")
    }

    /// Stores a new user (and its provider ids), writes `user.signed-up` and opens its first session. A session
    /// opened through a provider says `login` with that provider, as parse-server's does. With `verifyUserEmails`
    /// an address gets a verification mail, and with `preventLoginWithUnverifiedEmail` too there is no session.
    func create(_ changes: UserChanges, username: String, authData: AuthData?, logger: Logger,
                afterSave: UserAfterSave? = nil) async throws
        -> (id: String, createdAt: Date, session: SessionStore.NewSession?) {
        let users = UserStore(pool: pool)
        // Checked before hashing so a taken name costs no bcrypt round; the unique indexes settle races.
        try await users.checkUnique(username: username, email: changes.email)
        if let password = changes.password { try settings.passwordPolicy?.check(password, username: changes.username) }
        let passwordHash: String? = if let password = changes.password { try await PasswordHasher.hash(password) } else { nil }
        let id = changes.objectId ?? ObjectId.make()
        let acl = ACLValidator.withOwnerAccess(changes.acl, userId: id)
        let now = Date.nowMillis
        // Recorded only while passwords expire, as parse-server does: switching expiry on later starts every
        // existing password's clock at its next login.
        let passwordChangedAt = passwordHash != nil && settings.passwordPolicy?.maxPasswordAge != nil ? now : nil
        let email = settings.email
        let verification = email.verifyUserEmails && changes.email != nil && authData.map(\.onlyAnonymous) ?? true
            ? AccountMailer.newToken() : nil
        let verifyExpiresAt = verification == nil ? nil : email.emailVerifyTokenValidityDuration.map { now.addingTimeInterval($0) }
        let emailVerified = verification != nil ? false : changes.emailVerified
        let opensSession = !(email.verifyUserEmails && email.preventLoginWithUnverifiedEmail)
        let sessions = self.sessions
        let stored = authData.map { JSONValue.object($0.applied(to: [:])).compactText }
        let identities = UserIdentityStore(pool: pool)
        let session: SessionStore.NewSession?
        do {
            session = try await pool.transaction { connection in
                _ = try await connection.query("""
                    INSERT INTO users (id, username, email, email_verified, password_hash, acl, fields, auth_data,
                                       password_changed_at, email_verify_token_digest, email_verify_token_expires_at,
                                       created_at, updated_at)
                    VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8::jsonb, $9, $10, $11, $12, $12)
                    """, [id, username, changes.email, emailVerified, passwordHash, acl.compactText,
                          JSONValue.object(changes.set).compactText, stored, passwordChangedAt, verification?.digest,
                          verifyExpiresAt, now])
                if let authData { try await identities.apply(authData, userId: id, on: connection) }
                try await AuthEvents.userSignedUp(id, username: username, at: now, on: connection)
                try await afterSave?.enqueue(UserAfterSave.created(changes, id: id, username: username, at: now),
                                             original: nil, on: connection)
                guard opensSession else { return nil }
                return try await sessions.create(userId: id, action: authData == nil ? "signup" : "login",
                                                 authProvider: authData?.providerNames ?? "password", on: connection)
            }
        } catch {
            throw UserIdentityStore.linkError(error)
        }
        if let verification, let address = changes.email {
            await mailer.sendVerification(email: address, username: username, token: verification.token, logger: logger)
        }
        return (id, now, session)
    }
}
