import Contracts
import Foundation
import ParseWire
import Runtime
import Storage

/// What the links in verification and password reset mails do to an account, for both page routers (parse-server's
/// `PublicAPIRouter` and its `PagesRouter`): each token works once; a reset ends every session of the user.
struct AccountLinks: Sendable {
    let pool: PostgresPool
    let settings: AuthSettings
    let sessions: SessionStore

    private var email: EmailSettings { settings.email }

    /// Whether `token` verified `username`'s address; an address verified already counts, as parse-server answers.
    func verifyEmail(username: String, token: String) async throws -> Bool {
        guard email.verifyUserEmails else { return false }
        let verified = try await pool.query("""
            UPDATE users SET email_verified = true, email_verify_token_digest = NULL, email_verify_token_expires_at = NULL
            WHERE username = $1 AND email_verify_token_digest = $2
              AND (email_verify_token_expires_at IS NULL OR email_verify_token_expires_at > now())
            RETURNING id
            """, [username, SessionTokenDigest.digest(of: token)]).first != nil
        if verified { return true }
        return try await pool.query("SELECT 1 FROM users WHERE username = $1 AND email_verified", [username]).first != nil
    }

    /// Mails `username` a new verification link; false when there is no such user with an unverified address.
    func resendVerification(username: String, logger: Logger) async throws -> Bool {
        guard let user = try await pool.query("SELECT \(UserRecord.columns) FROM users WHERE username = $1", [username])
                .first.map(UserRecord.init), user.emailVerified != true, let address = user.email else {
            return false
        }
        if email.verifyUserEmails {
            let (token, digest) = AccountMailer.newToken()
            let expiresAt = email.emailVerifyTokenValidityDuration.map { Date().addingTimeInterval($0) }
            _ = try await pool.query("""
                UPDATE users SET email_verified = false, email_verify_token_digest = $2, email_verify_token_expires_at = $3
                WHERE id = $1
                """, [user.id, digest, expiresAt])
            await AccountMailer(settings: email).sendVerification(email: address, username: user.username, token: token,
                                                                  logger: logger)
        }
        return true
    }

    struct ResetRefusal: Error { let message: String }

    /// The user a reset link names, or why it does not work (parse-server's texts).
    func resetUser(username: String, token: String) async throws -> Result<UserRecord, ResetRefusal> {
        let row = try await pool.query("""
            SELECT \(UserRecord.columns), reset_token_expires_at FROM users WHERE username = $1 AND reset_token_digest = $2
            """, [username, SessionTokenDigest.digest(of: token)]).first
        guard let row else { return .failure(ResetRefusal(message: "Failed to reset password: username / email / token is invalid")) }
        if let expiresAt = row.date("reset_token_expires_at"), expiresAt < Date() {
            return .failure(ResetRefusal(message: "The password reset link has expired"))
        }
        return .success(UserRecord(row))
    }

    /// The new password, under the password policy, in one transaction that also spends the token (a second use
    /// finds it gone), lifts a lockout and ends every session of the user. Throws `ResetRefusal` or the policy's
    /// `ParseError`.
    func setPassword(_ password: String, username: String, token: String) async throws {
        let user = try await resetUser(username: username, token: token).get()
        guard password.utf8.count <= settings.maxPasswordLength, !password.utf8.contains(0) else {
            throw PasswordPolicy().requirementError
        }
        let users = UserHandler(pool: pool, settings: settings, sessions: sessions, mailer: AccountMailer(settings: email))
        let history = try await users.checkPolicy(password, of: user, newUsername: nil)
        let hash = try await PasswordHasher.hash(password)
        let stamps = settings.passwordPolicy?.maxPasswordAge != nil
        let digest = SessionTokenDigest.digest(of: token)
        let sessions = self.sessions
        let spent = try await pool.transaction { connection in
            var sql = SQLParameters([user.id, digest, hash])
            var assignments = ["password_hash = $3", "reset_token_digest = NULL", "reset_token_expires_at = NULL",
                               "failed_login_count = 0", "locked_until = NULL", "updated_at = now()"]
            if stamps { assignments.append("password_changed_at = now()") }
            if let history { assignments.append("password_history = \(sql.bindTextArray(history))") }
            let updated = try await connection.query("""
                UPDATE users SET \(assignments.joined(separator: ", ")) WHERE id = $1 AND reset_token_digest = $2 RETURNING id
                """, sql.values).first != nil
            if updated { try await sessions.revoke(where: "user_id = $1", [user.id], reason: "password-reset", on: connection) }
            return updated
        }
        guard spent else { throw ResetRefusal(message: "Failed to reset password: username / email / token is invalid") }
    }

    /// What a failed reset tells the user.
    static func failure(_ error: any Error) -> String? {
        if let refusal = error as? ResetRefusal { return refusal.message }
        return (error as? ParseError)?.message
    }
}
