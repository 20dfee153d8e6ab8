import Contracts
import Foundation
import Query
import Runtime

/// The auth service's own settings, with parse-server's option names where it has one.
struct AuthSettings: Sendable {
    /// `PARSE_SERVER_SESSION_LENGTH`: seconds a session lives (parse-server's `sessionLength`, one year).
    var sessionLength: Int
    /// `PARSE_SERVER_ACCOUNT_LOCKOUT`: parse-server's `accountLockout` as JSON, `{"duration":5,"threshold":5}`
    /// (minutes, failed attempts); `off` disables it. parse-server has no lockout unless configured; here it is
    /// on by default because passwords are otherwise open to guessing at full speed.
    var lockout: Lockout?
    var maxUsernameLength = 256
    /// bcrypt only reads the first 72 bytes; the cap stops a client from making the service hash megabytes.
    var maxPasswordLength = 1024
    /// Which `authData` providers are accepted, and their options.
    var providers = AuthProviders()
    /// `PARSE_SERVER_PASSWORD_POLICY`: parse-server's `passwordPolicy`; nil when unset.
    var passwordPolicy: PasswordPolicy?
    /// Verification and password reset mails.
    var email = EmailSettings()
    /// `PARSE_REVOKE_SESSIONS_ON_USER_DELETE`: deleting a user also ends its sessions. Off by default because
    /// parse-server keeps them (a left-over token still authenticates as that user id, without roles here), and
    /// the official SDKs' suites rely on a deleted user's token still being accepted.
    var revokeSessionsOnUserDelete = false
    /// `PARSE_SERVER_REQUEST_COMPLEXITY_*`: limits on a query's include paths and nesting.
    var requestComplexity = RequestComplexity.unlimited
    /// `PARSE_SERVER_ALLOW_CUSTOM_OBJECT_ID`: a new user or role may name its own `objectId`.
    var allowCustomObjectId = false

    struct Lockout: Sendable, Equatable {
        var durationMinutes: Int
        var threshold: Int
    }

    static let defaults = AuthSettings(sessionLength: 31_536_000, lockout: Lockout(durationMinutes: 5, threshold: 5))

    static func fromEnvironment(_ env: Environment = Environment()) throws -> AuthSettings {
        var settings = defaults
        settings.requestComplexity = try RequestComplexity.fromEnvironment(env)
        settings.sessionLength = try env.int("PARSE_SERVER_SESSION_LENGTH", default: defaults.sessionLength,
                                             in: 1...(100 * 31_536_000))
        if let text = env.optional("PARSE_SERVER_ACCOUNT_LOCKOUT") {
            settings.lockout = try parseLockout(text)
        }
        settings.providers = try AuthProviders.fromEnvironment(env)
        if let text = env.optional("PARSE_SERVER_PASSWORD_POLICY") { settings.passwordPolicy = try PasswordPolicy.parse(text) }
        settings.email = try EmailSettings.fromEnvironment(env)
        settings.revokeSessionsOnUserDelete = try env.bool("PARSE_REVOKE_SESSIONS_ON_USER_DELETE", default: false)
        settings.allowCustomObjectId = try env.bool("PARSE_SERVER_ALLOW_CUSTOM_OBJECT_ID", default: false)
        return settings
    }

    static func parseLockout(_ text: String) throws -> Lockout? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if ["", "off", "false", "none"].contains(trimmed.lowercased()) { return nil }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(trimmed.utf8))) as? [String: Any],
              let duration = object["duration"] as? Int, let threshold = object["threshold"] as? Int,
              (1...99_999).contains(duration), (1...999).contains(threshold) else {
            throw ConfigurationError(
                "PARSE_SERVER_ACCOUNT_LOCKOUT must be off or JSON like {\"duration\":5,\"threshold\":5} (minutes 1-99999, attempts 1-999)")
        }
        return Lockout(durationMinutes: duration, threshold: threshold)
    }
}
