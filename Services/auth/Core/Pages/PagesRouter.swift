import Contracts
import Foundation
import ParseWire

/// parse-server's `PagesRouter` (`pages.enableRouter`), route by route: the mail links' pages under `<mount>/apps/`
/// answered with the page itself for a GET and a 303 to it for a POST (`forceRedirect` always redirects), every
/// page parameter also in an `x-parse-page-param-<name>` header for scripts, pages localized by the request's
/// `locale` (query, form field, or the `x-parse-page-param-locale` header), and `GET /apps/<file>` serving the
/// pages folder itself.
struct PagesRouter: Sendable {
    let links: AccountLinks
    let options: PagesOptions

    private var email: EmailSettings { links.settings.email }

    /// The pages by parse-server's ids, with their files.
    enum Page: String {
        case passwordReset, passwordResetSuccess, passwordResetLinkInvalid, emailVerificationSuccess
        case emailVerificationSendFail, emailVerificationSendSuccess, emailVerificationLinkInvalid, emailVerificationLinkExpired

        var file: String {
            switch self {
            case .passwordReset: "password_reset.html"
            case .passwordResetSuccess: "password_reset_success.html"
            case .passwordResetLinkInvalid: "password_reset_link_invalid.html"
            case .emailVerificationSuccess: "email_verification_success.html"
            case .emailVerificationSendFail: "email_verification_send_fail.html"
            case .emailVerificationSendSuccess: "email_verification_send_success.html"
            case .emailVerificationLinkInvalid: "email_verification_link_invalid.html"
            case .emailVerificationLinkExpired: "email_verification_link_expired.html"
            }
        }
    }

    static let headerPrefix = "x-parse-page-param-"

    func handle(_ request: AuthRequest) async throws -> RESTResponse {
        let segments = request.segments
        let form = request.method == "POST" ? FormFields.parse(request.bodyText) : [:]
        let locale = Self.locale(request, form: form)
        let call = Call(method: request.method, locale: locale)
        switch (request.method, segments.count) {
        case ("GET", 2) where segments[1] == "choose_password":
            guard request.query["appId"] == email.applicationId else { return PublicPagesHandler.unauthorized }
            return try goTo(.passwordReset, call, params: ["token": request.query["token"], "username": request.query["username"]])
        case (_, 3) where ["verify_email", "resend_verification_email", "request_password_reset"].contains(segments[2]):
            guard segments[1] == email.applicationId else { return PublicPagesHandler.unauthorized }
            switch (request.method, segments[2]) {
            case ("GET", "verify_email"): return try await verifyEmail(request.query, call)
            case ("POST", "resend_verification_email"): return try await resend(form, call, request: request)
            case ("GET", "request_password_reset"): return try await openReset(request.query, call)
            case ("POST", "request_password_reset"):
                let xhr = request.triggerRequest.headers["x-requested-with"] == "XMLHttpRequest"
                return try await reset(form, call, xhr: xhr)
            default: break
            }
        case ("GET", 2...):
            return try staticFile(segments.dropFirst().joined(separator: "/"), call)
        default: break
        }
        return Self.notFound
    }

    struct Call {
        let method: String
        let locale: String?
    }

    // MARK: the routes

    private func verifyEmail(_ query: [String: String], _ call: Call) async throws -> RESTResponse {
        guard let username = query["username"], !username.isEmpty, let token = query["token"], !token.isEmpty else {
            return try goTo(.emailVerificationLinkInvalid, call)
        }
        let verified = try await links.verifyEmail(username: username, token: token)
        return try goTo(verified ? .emailVerificationSuccess : .emailVerificationLinkExpired, call, params: ["username": username])
    }

    private func resend(_ form: [String: String], _ call: Call, request: AuthRequest) async throws -> RESTResponse {
        guard let username = form["username"], !username.isEmpty else { return try goTo(.emailVerificationLinkInvalid, call) }
        let sent = try await links.resendVerification(username: username, logger: request.logger)
        return try goTo(sent ? .emailVerificationSendSuccess : .emailVerificationSendFail, call)
    }

    private func openReset(_ query: [String: String], _ call: Call) async throws -> RESTResponse {
        guard let username = query["username"], !username.isEmpty, let token = query["token"], !token.isEmpty else {
            return try goTo(.passwordResetLinkInvalid, call)
        }
        guard case .success = try await links.resetUser(username: username, token: token) else {
            return try goTo(.passwordResetLinkInvalid, call, params: ["username": username])
        }
        return try goTo(.passwordReset, call, params: ["token": token, "username": username])
    }

    /// parse-server's `resetPassword`: a form post answers a page; a script's (`X-Requested-With: XMLHttpRequest`)
    /// a JSON string or a Parse error.
    private func reset(_ form: [String: String], _ call: Call, xhr: Bool) async throws -> RESTResponse {
        let username = form["username"].flatMap { $0.isEmpty ? nil : $0 }
        let token = form["token"].flatMap { $0.isEmpty ? nil : $0 }
        let password = form["new_password"].flatMap { $0.isEmpty ? nil : $0 }
        guard let username, let token, let password else {
            if !xhr { return try goTo(.passwordResetLinkInvalid, call) }
            if username == nil { throw ParseError(.usernameMissing, "Missing username") }
            if token == nil { throw ParseError(.otherCause, "Missing token") }
            throw ParseError(.passwordMissing, "Missing password")
        }
        var failure: String?
        do {
            try await links.setPassword(password, username: username, token: token)
        } catch {
            guard let message = AccountLinks.failure(error) else { throw error }
            failure = message
        }
        if xhr {
            if let failure { throw ParseError(.otherCause, failure) }
            return RESTResponse(status: 200, headers: ["Content-Type": "application/json; charset=utf-8"],
                                body: #""Password successfully reset""#)
        }
        guard let failure else { return try goTo(.passwordResetSuccess, call, params: ["username": username], redirect: false) }
        return try goTo(.passwordReset, call, params: ["username": username, "token": token, "error": failure], redirect: false)
    }

    /// `GET /apps/<file>`: a page of the folder (filled in like the others), or any other file of it as it is.
    private func staticFile(_ relative: String, _ call: Call) throws -> RESTResponse {
        guard let params = defaultParams(call) else { return Self.notFound }
        let template: String?
        if let folder = options.pagesPath {
            template = Self.read(relative, in: folder)
        } else {
            template = BuiltInPages.template(relative)
        }
        guard let template else { return Self.notFound }
        guard relative.hasSuffix(".html") else {
            return RESTResponse(status: 200, headers: ["Content-Type": Self.contentType(relative)], body: template)
        }
        return page(template, params: params, locale: call.locale)
    }

    // MARK: pages and redirects

    /// parse-server's `goToPage`: the page's content, or a redirect to it (a POST, `redirect`, or
    /// `forceRedirect`), or to the page's `customUrls` entry.
    private func goTo(_ page: Page, _ call: Call, params extra: [String: String?] = [:], redirect: Bool? = nil) throws
        -> RESTResponse {
        guard var params = defaultParams(call) else { return Self.notFound }
        for (name, value) in extra { if let value { params[name] = value } }
        let redirects = options.forceRedirect || (redirect ?? (call.method == "POST"))
        if let custom = options.customUrls[page.rawValue], custom.hasPrefix("http://") || custom.hasPrefix("https://") {
            return Self.redirect(custom, params: params)
        }
        guard let publicURL = email.publicServerURL else { return Self.notFound }
        let folder = localizedFolder(page.file, locale: options.enableLocalization ? call.locale : nil)
        if redirects {
            return Self.redirect("\(publicURL)/apps/\(folder.map { $0 + "/" } ?? "")\(page.file)", params: params)
        }
        let template: String?
        if let root = options.pagesPath {
            template = Self.read(folder.map { "\($0)/\(page.file)" } ?? page.file, in: root)
        } else {
            template = BuiltInPages.template(page.file)
        }
        guard let template else { return Self.notFound }
        return self.page(template, params: params, locale: call.locale)
    }

    /// The subfolder of `pagesPath` holding `file` for `locale` (`de-CH`, else `de`), nil for the default one.
    private func localizedFolder(_ file: String, locale: String?) -> String? {
        guard let locale, let root = options.pagesPath else { return nil }
        let language = String(locale.split(separator: "-").first ?? "")
        for candidate in [locale, language] where FileManager.default.fileExists(atPath: "\(root)/\(candidate)/\(file)") {
            return candidate
        }
        return nil
    }

    private func page(_ template: String, params: [String: String], locale: String?) -> RESTResponse {
        var values = options.placeholderTexts
        for (name, value) in options.translation(locale, params: params) { values[name] = value }
        for (name, value) in params where values[name] == nil { values[name] = value }
        var headers = Self.paramHeaders(params)
        headers["Content-Type"] = "text/html; charset=utf-8"
        return RESTResponse(status: 200, headers: headers, body: PageTemplate.render(template, values))
    }

    /// What every page gets: `appId`, `appName`, `publicServerUrl` (no page without them, as in parse-server) and
    /// the `locale`, so that a locale once chosen follows the user from page to page.
    private func defaultParams(_ call: Call) -> [String: String]? {
        guard let appName = email.appName, let publicURL = email.publicServerURL else { return nil }
        var params = ["appId": email.applicationId, "appName": appName, "publicServerUrl": publicURL]
        if let locale = call.locale { params["locale"] = locale }
        return params
    }

    static func redirect(_ url: String, params: [String: String]) -> RESTResponse {
        let query = params.sorted { $0.key < $1.key }.map { "\($0.key)=\(AccountMailer.encode($0.value))" }.joined(separator: "&")
        let location = url + (url.contains("?") ? "&" : "?") + query
        var headers = paramHeaders(params)
        headers["Location"] = location
        headers["Content-Type"] = "text/plain; charset=utf-8"
        return RESTResponse(status: 303, headers: headers, body: "See Other. Redirecting to \(location)")
    }

    /// Each parameter as a header; values outside ASCII percent-encoded (parse-server 9's `encodePageParamHeaders`),
    /// since a header cannot carry them.
    static func paramHeaders(_ params: [String: String]) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in params {
            let safe = value.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 32 && $0.value != 127 }
            headers[headerPrefix + name.lowercased()] = safe ? value : AccountMailer.encode(value)
        }
        return headers
    }

    static let notFound = RESTResponse(status: 404, headers: ["Content-Type": "text/plain; charset=utf-8"], body: "Not found.")

    static func locale(_ request: AuthRequest, form: [String: String]) -> String? {
        let locale = request.query["locale"] ?? form["locale"] ?? request.triggerRequest.headers[headerPrefix + "locale"]
        return locale.flatMap { PagesLocale.isValid($0) ? $0 : nil }
    }

    /// A file of the pages folder, never one outside it (`..`, links out of it).
    static func read(_ relative: String, in root: String) -> String? {
        let path = URL(fileURLWithPath: root).appendingPathComponent(relative).standardizedFileURL.resolvingSymlinksInPath().path
        let base = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
        guard path.hasPrefix(base + "/"), let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    private static func contentType(_ file: String) -> String {
        switch (file as NSString).pathExtension.lowercased() {
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "json": "application/json; charset=utf-8"
        case "svg": "image/svg+xml"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
