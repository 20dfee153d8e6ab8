import Contracts
import Foundation
import ParseWire
import ServiceKit

/// The settings auth owns that `/settings` may change while it runs: `sessionLength`, `passwordPolicy` (parse-server's
/// object; `{}` for none), `verifyUserEmails`, `preventLoginWithUnverifiedEmail` and
/// `emailVerifyTokenValidityDuration`. Read from auth's own table by the requests they apply to
/// (`appliesTo`), so none of them costs a read on the others.
struct AuthRuntimeSettings: RuntimeSettingsOwner {
    let startUp: AuthSettings

    var names: Set<String> { RuntimeSettingNames.auth }

    /// Requests that may create a session, set a password or send or follow an account mail: every write, a login
    /// by GET, `verifyPassword`, and the public pages.
    static func appliesTo(method: String, path: String) -> Bool {
        guard method == "GET" else { return true }
        let first = path.split(separator: "/", maxSplits: 1).first ?? ""
        return first == "login" || first == "verifyPassword" || first == "apps"
    }

    func settings(with overrides: [String: JSONValue]) throws(ParseError) -> [String: JSONValue] {
        let settings = try applying(overrides)
        return [
            "sessionLength": .number(Double(settings.sessionLength)),
            "passwordPolicy": settings.passwordPolicy?.json ?? .null,
            "verifyUserEmails": .bool(settings.email.verifyUserEmails),
            "preventLoginWithUnverifiedEmail": .bool(settings.email.preventLoginWithUnverifiedEmail),
            "emailVerifyTokenValidityDuration": settings.email.emailVerifyTokenValidityDuration.map(JSONValue.number) ?? .null,
        ]
    }

    func applying(_ overrides: [String: JSONValue]) throws(ParseError) -> AuthSettings {
        var settings = startUp
        if let value = overrides["sessionLength"] {
            guard let seconds = value.numberValue, seconds == seconds.rounded(), (1...(100 * 31_536_000)).contains(seconds) else {
                throw ParseError(.invalidJSON, "sessionLength must be a whole number of seconds from 1 to 100 years.")
            }
            settings.sessionLength = Int(seconds)
        }
        if let value = overrides["passwordPolicy"] {
            guard value.objectValue != nil else { throw ParseError(.invalidJSON, "passwordPolicy must be an object ({} for none).") }
            do {
                settings.passwordPolicy = try PasswordPolicy.parse(value.compactText, option: "passwordPolicy")
            } catch {
                throw ParseError(.invalidJSON, "\(error)")
            }
        }
        for name in ["verifyUserEmails", "preventLoginWithUnverifiedEmail"] {
            guard let value = overrides[name] else { continue }
            guard let flag = value.boolValue else { throw ParseError(.invalidJSON, "\(name) must be a boolean.") }
            if name == "verifyUserEmails" { settings.email.verifyUserEmails = flag } else { settings.email.preventLoginWithUnverifiedEmail = flag }
        }
        if let value = overrides["emailVerifyTokenValidityDuration"] {
            guard let seconds = value.numberValue, seconds > 0, seconds.isFinite else {
                throw ParseError(.invalidJSON, "emailVerifyTokenValidityDuration must be a positive number of seconds.")
            }
            settings.email.emailVerifyTokenValidityDuration = seconds
        }
        // As at start: mails that were promised could never be sent.
        if settings.email.verifyUserEmails && !settings.email.isConfigured {
            throw ParseError(.invalidJSON, "verifyUserEmails needs an app name, a public server URL and an e-mail adapter, "
                             + "set where auth starts (PARSE_SERVER_APP_NAME, PARSE_PUBLIC_SERVER_URL, PARSE_SERVER_EMAIL_ADAPTER).")
        }
        return settings
    }
}

extension PasswordPolicy {
    /// As parse-server's option reads it; `parse(json.compactText)` gives the policy back.
    var json: JSONValue {
        var fields: [String: JSONValue] = [:]
        if let validatorPattern { fields["validatorPattern"] = .string(validatorPattern) }
        if let validationError { fields["validationError"] = .string(validationError) }
        if doNotAllowUsername { fields["doNotAllowUsername"] = .bool(true) }
        if let maxPasswordAge { fields["maxPasswordAge"] = .number(maxPasswordAge) }
        if maxPasswordHistory > 0 { fields["maxPasswordHistory"] = .number(Double(maxPasswordHistory)) }
        if let resetTokenValidityDuration { fields["resetTokenValidityDuration"] = .number(resetTokenValidityDuration) }
        if !resetPasswordSuccessOnInvalidEmail { fields["resetPasswordSuccessOnInvalidEmail"] = .bool(false) }
        return .object(fields)
    }
}
