import ParseWire
import Runtime

/// parse-server's `customPages` (`PARSE_SERVER_CUSTOM_PAGES`, a JSON object of URLs): where the public pages'
/// redirects lead, for an app that serves its own pages; each page not named stays the built-in one under
/// `<publicServerURL>/apps/`. The redirects keep their query (`username`, `token`, `appId`...).
struct CustomPages: Sendable, Equatable {
    enum Page: String, CaseIterable, Sendable {
        case invalidLink, verifyEmailSuccess, choosePassword, passwordResetSuccess, invalidVerificationLink
        case linkSendSuccess, linkSendFail

        /// The built-in page, as parse-server names it.
        var file: String {
            switch self {
            case .invalidLink: "invalid_link.html"
            case .verifyEmailSuccess: "verify_email_success.html"
            case .choosePassword: "choose_password"
            case .passwordResetSuccess: "password_reset_success.html"
            case .invalidVerificationLink: "invalid_verification_link.html"
            case .linkSendSuccess: "link_send_success.html"
            case .linkSendFail: "link_send_fail.html"
            }
        }
    }

    var urls: [Page: String] = [:]

    static func fromEnvironment(_ env: Environment) throws -> CustomPages {
        guard let text = env.optional("PARSE_SERVER_CUSTOM_PAGES") else { return CustomPages() }
        guard let object = JSONValue.parse(text)?.objectValue else {
            throw ConfigurationError("PARSE_SERVER_CUSTOM_PAGES must be a JSON object of page URLs, like {\"invalidLink\":\"https://...\"}")
        }
        var pages = CustomPages()
        for (name, value) in object {
            // parse-server's `parseFrameURL` frames its pages in another site; it has no page here to redirect.
            if name == "parseFrameURL" { continue }
            guard let page = Page(rawValue: name) else {
                throw ConfigurationError("PARSE_SERVER_CUSTOM_PAGES: unknown page \(name) (one of "
                                         + Page.allCases.map(\.rawValue).joined(separator: ", ") + ")")
            }
            guard let url = value.stringValue, url.hasPrefix("http://") || url.hasPrefix("https://") else {
                throw ConfigurationError("PARSE_SERVER_CUSTOM_PAGES: \(name) must be an http(s) URL")
            }
            pages.urls[page] = url
        }
        return pages
    }

    /// Where `page` is, with `query` (already encoded) after it.
    func url(_ page: Page, publicServerURL: String, query: String = "") -> String {
        let base = urls[page] ?? "\(publicServerURL)/apps/\(page.file)"
        guard !query.isEmpty else { return base }
        return base + (base.contains("?") ? "&" : "?") + query
    }
}
