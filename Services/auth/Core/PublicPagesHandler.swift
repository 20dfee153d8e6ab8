import Contracts
import Foundation
import ParseWire
import Storage

/// parse-server's public pages (`PublicAPIRouter`) under `<mount>/apps/`: the verification link, the password
/// reset link, the form that sets the new password, and the result pages. Each token works once; a reset ends
/// every session of the user.
struct PublicPagesHandler: Sendable {
    let pool: PostgresPool
    let settings: AuthSettings
    let sessions: SessionStore

    private var email: EmailSettings { settings.email }
    private var pages: CustomPages { settings.email.customPages }

    func handle(_ request: AuthRequest) async throws -> RESTResponse {
        let segments = request.segments
        guard let publicURL = email.publicServerURL else { return Self.text(404, "Not found.") }
        switch (request.method, segments.count) {
        case ("GET", 2) where segments[1] == "choose_password":
            guard request.query["id"] == email.applicationId else { return Self.unauthorized }
            return Self.html(200, PublicPages.choosePassword(query: request.query, publicServerURL: publicURL))
        case ("GET", 2):
            guard let page = PublicPages.named(segments[1], query: request.query, publicServerURL: publicURL) else { break }
            return Self.html(200, page)
        case (_, 3):
            guard segments[1] == email.applicationId else { return Self.unauthorized }
            switch (request.method, segments[2]) {
            case ("GET", "verify_email"): return try await verifyEmail(request.query, publicURL: publicURL)
            case ("POST", "resend_verification_email"):
                return try await resendVerification(FormFields.parse(request.bodyText), request: request, publicURL: publicURL)
            case ("GET", "request_password_reset"): return try await openReset(request.query, publicURL: publicURL)
            case ("POST", "request_password_reset"):
                return try await reset(FormFields.parse(request.bodyText), publicURL: publicURL)
            default: break
            }
        default: break
        }
        return Self.text(404, "Not found.")
    }

    // MARK: e-mail verification

    private func verifyEmail(_ query: [String: String], publicURL: String) async throws -> RESTResponse {
        guard let username = query["username"], !username.isEmpty, let token = query["token"], !token.isEmpty else {
            return Self.redirect(pages.url(.invalidLink, publicServerURL: publicURL))
        }
        let verified = email.verifyUserEmails ? try await pool.query("""
            UPDATE users SET email_verified = true, email_verify_token_digest = NULL, email_verify_token_expires_at = NULL
            WHERE username = $1 AND email_verify_token_digest = $2
              AND (email_verify_token_expires_at IS NULL OR email_verify_token_expires_at > now())
            RETURNING id
            """, [username, SessionTokenDigest.digest(of: token)]).first != nil : false
        // parse-server answers success for an address verified already.
        let already = verified ? false
            : try await pool.query("SELECT 1 FROM users WHERE username = $1 AND email_verified", [username]).first != nil
        if verified || (already && email.verifyUserEmails) {
            return Self.redirect(pages.url(.verifyEmailSuccess, publicServerURL: publicURL, query: FormFields.encode([("username", username)])))
        }
        return Self.redirect(pages.url(.invalidVerificationLink, publicServerURL: publicURL,
                                       query: FormFields.encode([("username", username), ("appId", email.applicationId)])))
    }

    private func resendVerification(_ form: [String: String], request: AuthRequest, publicURL: String) async throws -> RESTResponse {
        guard let username = form["username"], !username.isEmpty else { return Self.redirect(pages.url(.invalidLink, publicServerURL: publicURL)) }
        guard let user = try await pool.query("SELECT \(UserRecord.columns) FROM users WHERE username = $1", [username])
                .first.map(UserRecord.init), user.emailVerified != true, let address = user.email else {
            return Self.redirect(pages.url(.linkSendFail, publicServerURL: publicURL))
        }
        if email.verifyUserEmails {
            let (token, digest) = AccountMailer.newToken()
            let expiresAt = email.emailVerifyTokenValidityDuration.map { Date().addingTimeInterval($0) }
            _ = try await pool.query("""
                UPDATE users SET email_verified = false, email_verify_token_digest = $2, email_verify_token_expires_at = $3
                WHERE id = $1
                """, [user.id, digest, expiresAt])
            await AccountMailer(settings: email).sendVerification(email: address, username: user.username, token: token,
                                                                  logger: request.logger)
        }
        return Self.redirect(pages.url(.linkSendSuccess, publicServerURL: publicURL))
    }

    // MARK: password reset

    /// The user a reset link names, or why it does not work (parse-server's texts).
    private func resetUser(username: String, token: String) async throws -> Result<UserRecord, ResetRefusal> {
        let row = try await pool.query("""
            SELECT \(UserRecord.columns), reset_token_expires_at FROM users WHERE username = $1 AND reset_token_digest = $2
            """, [username, SessionTokenDigest.digest(of: token)]).first
        guard let row else { return .failure(ResetRefusal(message: "Failed to reset password: username / email / token is invalid")) }
        if let expiresAt = row.date("reset_token_expires_at"), expiresAt < Date() {
            return .failure(ResetRefusal(message: "The password reset link has expired"))
        }
        return .success(UserRecord(row))
    }

    struct ResetRefusal: Error { let message: String }

    private func openReset(_ query: [String: String], publicURL: String) async throws -> RESTResponse {
        guard let username = query["username"], !username.isEmpty, let token = query["token"], !token.isEmpty,
              case .success = try await resetUser(username: username, token: token) else {
            return Self.redirect(pages.url(.invalidLink, publicServerURL: publicURL))
        }
        return Self.redirect(pages.url(.choosePassword, publicServerURL: publicURL, query: FormFields.encode([
            ("token", token), ("id", email.applicationId), ("username", username), ("app", email.appName),
        ])))
    }

    private func reset(_ form: [String: String], publicURL: String) async throws -> RESTResponse {
        guard let username = form["username"], !username.isEmpty, let token = form["token"], !token.isEmpty,
              let password = form["new_password"], !password.isEmpty else {
            return Self.redirect(pages.url(.invalidLink, publicServerURL: publicURL))
        }
        let failure: String
        do {
            try await setPassword(password, username: username, token: token)
            return Self.redirect(pages.url(.passwordResetSuccess, publicServerURL: publicURL, query: FormFields.encode([("username", username)])))
        } catch let refusal as ResetRefusal {
            failure = refusal.message
        } catch let error as ParseError {
            failure = error.message
        }
        return Self.redirect(pages.url(.choosePassword, publicServerURL: publicURL, query: FormFields.encode([
            ("username", username), ("token", token), ("id", email.applicationId), ("error", failure), ("app", email.appName),
        ])))
    }

    /// The new password, under the password policy, in one transaction that also spends the token (a second use
    /// finds it gone), lifts a lockout and ends every session of the user.
    private func setPassword(_ password: String, username: String, token: String) async throws {
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

    // MARK: answers

    static let unauthorized = RESTResponse(status: 403, headers: ["Content-Type": "application/json; charset=utf-8"],
                                           body: #"{"error":"unauthorized"}"#)

    static func html(_ status: Int, _ page: String) -> RESTResponse {
        RESTResponse(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: page)
    }

    static func text(_ status: Int, _ text: String) -> RESTResponse {
        RESTResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: text)
    }

    static func redirect(_ location: String) -> RESTResponse {
        RESTResponse(status: 302, headers: ["Location": location, "Content-Type": "text/plain; charset=utf-8"],
                     body: "Found. Redirecting to \(location)")
    }
}
