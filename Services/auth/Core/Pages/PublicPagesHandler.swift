import Contracts
import Foundation
import ParseWire
import Storage

/// parse-server's public pages (`PublicAPIRouter`) under `<mount>/apps/`: the verification link, the password
/// reset link, the form that sets the new password, and the result pages. With `PARSE_SERVER_PAGES_ENABLE_ROUTER`
/// the newer `PagesRouter` answers these routes instead.
struct PublicPagesHandler: Sendable {
    let links: AccountLinks

    private var email: EmailSettings { links.settings.email }
    private var pages: CustomPages { email.customPages }

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
        if try await links.verifyEmail(username: username, token: token) {
            return Self.redirect(pages.url(.verifyEmailSuccess, publicServerURL: publicURL, query: FormFields.encode([("username", username)])))
        }
        return Self.redirect(pages.url(.invalidVerificationLink, publicServerURL: publicURL,
                                       query: FormFields.encode([("username", username), ("appId", email.applicationId)])))
    }

    private func resendVerification(_ form: [String: String], request: AuthRequest, publicURL: String) async throws -> RESTResponse {
        guard let username = form["username"], !username.isEmpty else { return Self.redirect(pages.url(.invalidLink, publicServerURL: publicURL)) }
        let sent = try await links.resendVerification(username: username, logger: request.logger)
        return Self.redirect(pages.url(sent ? .linkSendSuccess : .linkSendFail, publicServerURL: publicURL))
    }

    // MARK: password reset

    private func openReset(_ query: [String: String], publicURL: String) async throws -> RESTResponse {
        guard let username = query["username"], !username.isEmpty, let token = query["token"], !token.isEmpty,
              case .success = try await links.resetUser(username: username, token: token) else {
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
            try await links.setPassword(password, username: username, token: token)
            return Self.redirect(pages.url(.passwordResetSuccess, publicServerURL: publicURL, query: FormFields.encode([("username", username)])))
        } catch {
            guard let message = AccountLinks.failure(error) else { throw error }
            failure = message
        }
        return Self.redirect(pages.url(.choosePassword, publicServerURL: publicURL, query: FormFields.encode([
            ("username", username), ("token", token), ("id", email.applicationId), ("error", failure), ("app", email.appName),
        ])))
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
