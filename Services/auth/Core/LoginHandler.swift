import Contracts
import Foundation
import ParseWire
import Storage

/// `GET|POST /login` and `GET|POST /verifyPassword`: checks the credentials as parse-server does (same errors,
/// same order), with the account lockout counted in PostgreSQL so it holds across replicas.
struct LoginHandler: Sendable {
    let pool: PostgresPool
    let settings: AuthSettings
    let sessions: SessionStore

    func login(_ request: AuthRequest) async throws -> RESTResponse {
        let user = try await authenticate(request, countsSuccess: false)
        let sent = try request.body()["authData"].flatMap { try AuthData.parse($0) }
        let factor: MultiFactorAuth.Step?
        do {
            factor = try settings.providers.loginFactor(sent, stored: user.authData)
        } catch let error as ParseError where error == MultiFactorAuth.invalidToken {
            // A wrong second factor counts as a failed login, so the account lockout bounds guessing the codes
            // (parse-server counts only wrong passwords).
            try await applyLockout(user, loginSucceeded: false)
            throw error
        }
        try await applyLockout(user, loginSucceeded: true)
        try await checkPasswordAge(user)
        let triggers = UserTriggers(request: request)
        try await triggers.beforeLogin(user.json(showEmail: true))
        let names = await request.triggers(of: UserTriggers.userClass)
        let sessions = self.sessions
        var stored = user.authData
        if let factor { stored["mfa"] = factor.save }
        let enrolled = factor == nil ? nil : JSONValue.object(stored).compactText
        let session = try await pool.transaction { connection in
            if let enrolled {
                _ = try await connection.query("UPDATE users SET auth_data = $2::jsonb WHERE id = $1", [user.id, enrolled])
            }
            let session = try await sessions.create(userId: user.id, action: "login", authProvider: "password", on: connection)
            try await triggers.afterLogin(user.json(showEmail: true), userId: user.id, names: names, on: connection)
            return session
        }
        var answer = user.json(showEmail: true, sessionToken: session.token)
        if factor != nil { answer["authData"] = .object(UserRecord.clientView(stored, isMaster: request.isMaster)) }
        // parse-server answers the providers' responses whenever the login sent `authData`.
        if sent != nil { answer["authDataResponse"] = .object(factor?.response.map { ["mfa": $0] } ?? [:]) }
        return AuthResponses.ok(answer)
    }

    func verifyPassword(_ request: AuthRequest) async throws -> RESTResponse {
        let user = try await authenticate(request)
        return AuthResponses.ok(user.json(showEmail: true))
    }

    /// The user the credentials name. `countsSuccess: false` leaves the failed attempts as they are when the password
    /// is right, for a caller with a second check to make (a login's second factor).
    func authenticate(_ request: AuthRequest, countsSuccess: Bool = true) async throws -> UserRecord {
        let credentials = try Credentials(request)
        let invalid = ParseError(.objectNotFound, "Invalid username/password.")
        guard let user = try await UserStore(pool: pool).findForLogin(username: credentials.username, email: credentials.email),
              let hash = user.passwordHash else {
            // Same work as a real check, so the answer's timing does not reveal which usernames exist.
            _ = await PasswordHasher.verify(credentials.password, against: Self.decoyHash)
            throw invalid
        }
        let matches = await PasswordHasher.verify(credentials.password, against: hash)
        if countsSuccess || !matches {
            try await applyLockout(user, loginSucceeded: matches)
        } else {
            try refuseIfLocked(user)
        }
        guard matches else { throw invalid }
        // A user whose ACL grants nobody anything cannot log in (parse-server's "locked" user).
        if !request.isMaster, user.acl?.objectValue?.isEmpty == true { throw invalid }
        if settings.email.verifyUserEmails, settings.email.preventLoginWithUnverifiedEmail, user.emailVerified != true {
            throw ParseError(.emailNotFound, "User email is not verified.")
        }
        return user
    }

    /// parse-server's order: a locked account refuses even the right password; a failure counts, and the
    /// attempt that reaches the threshold still answers "Invalid username/password.".
    private func applyLockout(_ user: UserRecord, loginSucceeded: Bool) async throws {
        guard let lockout = settings.lockout else { return }
        try refuseIfLocked(user)
        if loginSucceeded {
            if user.failedLoginCount != 0 || user.lockedUntil != nil {
                _ = try await pool.query("UPDATE users SET failed_login_count = 0, locked_until = NULL WHERE id = $1", [user.id])
            }
            return
        }
        // One statement, so concurrent failures on several replicas all count; an expired lock starts over.
        _ = try await pool.query("""
            UPDATE users SET
                failed_login_count = CASE WHEN locked_until <= now() THEN 1 ELSE failed_login_count + 1 END,
                locked_until = CASE
                    WHEN (CASE WHEN locked_until <= now() THEN 1 ELSE failed_login_count + 1 END) >= $2
                        THEN now() + make_interval(mins => $3)
                    WHEN locked_until <= now() THEN NULL
                    ELSE locked_until END
            WHERE id = $1
            """, [user.id, lockout.threshold, lockout.durationMinutes])
    }

    private func refuseIfLocked(_ user: UserRecord) throws {
        guard let lockout = settings.lockout, let until = user.lockedUntil, until > Date(),
              user.failedLoginCount >= lockout.threshold else { return }
        throw ParseError(.objectNotFound,
                         "Your account is locked due to multiple failed login attempts. Please try again after \(lockout.durationMinutes) minute(s)")
    }

    /// parse-server's `maxPasswordAge` at login: a password older than that is refused; one set before expiry was
    /// switched on starts its clock now.
    private func checkPasswordAge(_ user: UserRecord) async throws {
        guard let policy = settings.passwordPolicy, policy.maxPasswordAge != nil else { return }
        guard let changedAt = user.passwordChangedAt else {
            _ = try await pool.query("UPDATE users SET password_changed_at = now() WHERE id = $1 AND password_changed_at IS NULL",
                                     [user.id])
            return
        }
        if policy.hasExpired(changedAt: changedAt) { throw PasswordPolicy.expired }
    }

    /// A bcrypt hash of a random string, made once, checked when no user matches.
    private static let decoyHash = (try? PasswordHasher.hashNow(RandomIdentifiers.sessionToken())) ?? ""

    /// The credentials from the body, or from the query string when the body has none (parse-server's rule).
    /// Query-string values stay strings: `username={"$ne":null}` is a strange username, never a query.
    struct Credentials {
        let username: String?
        let email: String?
        let password: String

        init(_ request: AuthRequest) throws {
            var payload = try request.body()
            if (payload["username"] == nil && request.query["username"] != nil)
                || (payload["email"] == nil && request.query["email"] != nil) {
                payload = request.query.mapValues { JSONValue.string($0) }
            }
            let username = payload["username"].flatMap { $0.isNull ? nil : $0 }
            let email = payload["email"].flatMap { $0.isNull ? nil : $0 }
            let password = payload["password"].flatMap { $0.isNull ? nil : $0 }
            if username.map(Self.isEmpty) ?? true, email.map(Self.isEmpty) ?? true {
                throw ParseError(.usernameMissing, "username/email is required.")
            }
            guard let password, !Self.isEmpty(password) else {
                throw ParseError(.passwordMissing, "password is required.")
            }
            let invalid = ParseError(.objectNotFound, "Invalid username/password.")
            guard let passwordText = password.stringValue else { throw invalid }
            if let username, username.stringValue == nil { throw invalid }
            if let email, email.stringValue == nil { throw invalid }
            self.username = username?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            self.email = email?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            self.password = passwordText
        }

        private static func isEmpty(_ value: JSONValue) -> Bool {
            value.stringValue?.isEmpty == true
        }
    }
}
