import Contracts
import Foundation
import ParseWire
import Runtime
import Storage

/// `POST /verificationEmailRequest` and `POST /requestPasswordReset`, parse-server's order: the e-mail
/// configuration, then the address, then the user.
struct EmailRequestsHandler: Sendable {
    let pool: PostgresPool
    let settings: AuthSettings
    let mailer: AccountMailer

    static let notConfigured = ParseError(.internalServerError,
        "An appName, publicServerURL, and emailAdapter are required for password reset and email verification functionality.")

    private func email(_ request: AuthRequest) throws -> String {
        guard settings.email.isConfigured else { throw Self.notConfigured }
        let body = try request.body()
        guard let email = body["email"], !email.isNull, email != .string(""), email != .bool(false), email != .number(0) else {
            throw ParseError(.emailMissing, "you must provide an email")
        }
        guard let text = email.stringValue else { throw ParseError(.invalidEmailAddress, "you must provide a valid email string") }
        return text
    }

    func verificationEmailRequest(_ request: AuthRequest) async throws -> RESTResponse {
        let email = try email(request)
        guard let user = try await pool.query("SELECT \(UserRecord.columns) FROM users WHERE email = $1 LIMIT 1", [email])
            .first.map(UserRecord.init) else {
            throw ParseError(.emailNotFound, "No user found with email \(email)")
        }
        if user.emailVerified == true { throw ParseError(.otherCause, "Email \(email) is already verified.") }
        guard settings.email.verifyUserEmails else { return AuthResponses.empty }
        let (token, digest) = AccountMailer.newToken()
        let expiresAt = settings.email.emailVerifyTokenValidityDuration.map { Date().addingTimeInterval($0) }
        _ = try await pool.query("""
            UPDATE users SET email_verified = false, email_verify_token_digest = $2, email_verify_token_expires_at = $3
            WHERE id = $1
            """, [user.id, digest, expiresAt])
        await mailer.sendVerification(email: email, username: user.username, token: token, logger: request.logger)
        return AuthResponses.empty
    }

    /// The answer is `{}` whether or not the address belongs to someone (unless
    /// `passwordPolicy.resetPasswordSuccessOnInvalidEmail` is false), and the mail goes out before it, so neither
    /// the answer nor its timing tells.
    func requestPasswordReset(_ request: AuthRequest) async throws -> RESTResponse {
        let email = try email(request)
        // parse-server's `{$or: [{email}, {username: email, email: {$exists: false}}]}`.
        let row = try await pool.query("""
            SELECT \(UserRecord.columns) FROM users WHERE email = $1 OR (username = $1 AND email IS NULL)
            ORDER BY (email = $1) DESC NULLS LAST LIMIT 1
            """, [email]).first
        guard let user = row.map(UserRecord.init) else {
            if settings.passwordPolicy?.resetPasswordSuccessOnInvalidEmail ?? true { return AuthResponses.empty }
            throw ParseError(.emailNotFound, "A user with that email does not exist.")
        }
        try await UserTriggers(request: request).beforePasswordResetRequest(user.json(showEmail: true))
        let (token, digest) = AccountMailer.newToken()
        let expiresAt = settings.passwordPolicy?.resetTokenValidityDuration.map { Date().addingTimeInterval($0) }
        _ = try await pool.query("UPDATE users SET reset_token_digest = $2, reset_token_expires_at = $3 WHERE id = $1",
                                 [user.id, digest, expiresAt])
        await mailer.sendReset(email: user.email, username: user.username, token: token, logger: request.logger)
        return AuthResponses.empty
    }
}
