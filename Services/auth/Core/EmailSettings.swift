import Foundation
import Runtime

/// E-mail verification and password reset, configured with parse-server's option names: `appName`
/// (`PARSE_SERVER_APP_NAME`), `publicServerURL` (`PARSE_PUBLIC_SERVER_URL`), `emailAdapter`
/// (`PARSE_SERVER_EMAIL_ADAPTER`, SMTP), `verifyUserEmails`, `preventLoginWithUnverifiedEmail`,
/// `emailVerifyTokenValidityDuration` (seconds).
struct EmailSettings: Sendable {
    var applicationId = "myAppId"
    var appName: String?
    var publicServerURL: String?
    var smtp: SMTPOptions?
    var verifyUserEmails = false
    var preventLoginWithUnverifiedEmail = false
    var emailVerifyTokenValidityDuration: Double?
    /// `PARSE_SERVER_CUSTOM_PAGES`: the app's own pages for the public pages' redirects.
    var customPages = CustomPages()
    /// `PARSE_SERVER_PAGES`: parse-server's `pages` option, for its newer pages router.
    var pages = PagesOptions()

    /// What parse-server needs before it sends any mail.
    var isConfigured: Bool { appName != nil && publicServerURL != nil && smtp != nil }

    static func fromEnvironment(_ env: Environment) throws -> EmailSettings {
        var settings = EmailSettings()
        settings.applicationId = env.string("PARSE_SERVER_APPLICATION_ID", default: "myAppId")
        settings.appName = env.optional("PARSE_SERVER_APP_NAME")
        settings.publicServerURL = env.optional("PARSE_PUBLIC_SERVER_URL").map { url in
            var trimmed = url
            while trimmed.hasSuffix("/") { trimmed.removeLast() }
            return trimmed
        }
        settings.smtp = try env.optional("PARSE_SERVER_EMAIL_ADAPTER").map(SMTPOptions.parse)
        settings.customPages = try CustomPages.fromEnvironment(env)
        settings.pages = try PagesOptions.fromEnvironment(env)
        settings.verifyUserEmails = try flag(env, "PARSE_SERVER_VERIFY_USER_EMAILS")
        settings.preventLoginWithUnverifiedEmail = try flag(env, "PARSE_SERVER_PREVENT_LOGIN_WITH_UNVERIFIED_EMAIL")
        if let text = env.optional("PARSE_SERVER_EMAIL_VERIFY_TOKEN_VALIDITY_DURATION") {
            guard let seconds = Double(text), seconds > 0 else {
                throw ConfigurationError("PARSE_SERVER_EMAIL_VERIFY_TOKEN_VALIDITY_DURATION must be a positive number of seconds")
            }
            settings.emailVerifyTokenValidityDuration = seconds
        }
        // parse-server refuses to start in this state too: it could never send the mails it promises.
        if settings.verifyUserEmails && !settings.isConfigured {
            throw ConfigurationError("PARSE_SERVER_VERIFY_USER_EMAILS needs PARSE_SERVER_APP_NAME, PARSE_PUBLIC_SERVER_URL and PARSE_SERVER_EMAIL_ADAPTER")
        }
        return settings
    }

    private static func flag(_ env: Environment, _ key: String) throws -> Bool {
        try env.bool(key, default: false)
    }
}
