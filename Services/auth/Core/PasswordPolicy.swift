import Foundation
import ParseWire
import Runtime

/// parse-server's `passwordPolicy` (`PARSE_SERVER_PASSWORD_POLICY`, the same JSON object), with its messages.
/// `validatorCallback` has no equivalent here: it is JavaScript.
struct PasswordPolicy: Sendable, Equatable {
    /// A regular expression a new password must match somewhere (JavaScript's `RegExp.test`).
    var validatorPattern: String?
    var validationError: String?
    var doNotAllowUsername = false
    /// Days a password stays valid for logging in.
    var maxPasswordAge: Double?
    /// How many earlier passwords (the current one included) a new one must differ from, 0-20.
    var maxPasswordHistory = 0
    /// Seconds a password reset link stays valid (until used).
    var resetTokenValidityDuration: Double?
    var resetTokenReuseIfValid = false
    var resetPasswordSuccessOnInvalidEmail = true

    var requirementError: ParseError {
        ParseError(.validationError, validationError ?? "Password does not meet the Password Policy requirements.")
    }

    static let containsUsername = ParseError(.validationError, "Password cannot contain your username.")
    static let expired = ParseError(.objectNotFound, "Your password has expired. Please reset your password.")

    func historyError() -> ParseError {
        ParseError(.validationError, "New password should not be the same as last \(maxPasswordHistory) passwords.")
    }

    /// The strength rules, in parse-server's order: the pattern, then the username.
    func check(_ password: String, username: String?) throws {
        if let validatorPattern {
            let expression = try? NSRegularExpression(pattern: validatorPattern)
            let range = NSRange(password.startIndex..., in: password)
            guard let expression, expression.firstMatch(in: password, range: range) != nil else { throw requirementError }
        }
        if doNotAllowUsername, let username, !username.isEmpty, password.contains(username) {
            throw Self.containsUsername
        }
    }

    /// Whether a password set at `changedAt` has expired.
    func hasExpired(changedAt: Date, now: Date = Date()) -> Bool {
        guard let maxPasswordAge else { return false }
        return changedAt.addingTimeInterval(maxPasswordAge * 86_400) < now
    }

    /// `option` names where the text came from in the refusal: the environment variable, or `/settings`' field.
    static func parse(_ text: String, option: String = "PARSE_SERVER_PASSWORD_POLICY") throws -> PasswordPolicy? {
        let invalid = { (detail: String) in ConfigurationError("\(option): \(detail)") }
        guard let object = JSONValue.parse(text)?.objectValue else { throw invalid("must be a JSON object") }
        var policy = PasswordPolicy()
        for (key, value) in object {
            switch key {
            case "validatorPattern":
                guard let pattern = value.stringValue, (try? NSRegularExpression(pattern: pattern)) != nil else {
                    throw invalid("passwordPolicy.validatorPattern must be a regex string or RegExp object.")
                }
                policy.validatorPattern = pattern
            case "validationError":
                guard let message = value.stringValue else { throw invalid("validationError must be a string") }
                policy.validationError = message
            case "doNotAllowUsername":
                guard let flag = value.boolValue else { throw invalid("passwordPolicy.doNotAllowUsername must be a boolean value.") }
                policy.doNotAllowUsername = flag
            case "maxPasswordAge":
                guard let days = value.numberValue, days >= 0 else { throw invalid("passwordPolicy.maxPasswordAge must be a positive number") }
                policy.maxPasswordAge = days == 0 ? nil : days
            case "maxPasswordHistory":
                guard let count = value.numberValue, count == count.rounded(), (0...20).contains(count) else {
                    throw invalid("passwordPolicy.maxPasswordHistory must be an integer ranging 0 - 20")
                }
                policy.maxPasswordHistory = Int(count)
            case "resetTokenValidityDuration":
                guard let seconds = value.numberValue, seconds > 0 else {
                    throw invalid("passwordPolicy.resetTokenValidityDuration must be a positive number")
                }
                policy.resetTokenValidityDuration = seconds
            case "resetTokenReuseIfValid":
                guard let flag = value.boolValue else { throw invalid("resetTokenReuseIfValid must be a boolean value") }
                policy.resetTokenReuseIfValid = flag
            case "resetPasswordSuccessOnInvalidEmail":
                guard let flag = value.boolValue else { throw invalid("resetPasswordSuccessOnInvalidEmail must be a boolean value") }
                policy.resetPasswordSuccessOnInvalidEmail = flag
            case "validatorCallback":
                throw invalid("validatorCallback is a JavaScript function; use validatorPattern")
            default:
                throw invalid("unknown option \(key)")
            }
        }
        if policy.resetTokenReuseIfValid && policy.resetTokenValidityDuration == nil {
            throw invalid("resetTokenValidityDuration must be set when resetTokenReuseIfValid is set")
        }
        // Reset tokens are stored only as digests, so an earlier token cannot be mailed again.
        if policy.resetTokenReuseIfValid { throw invalid("resetTokenReuseIfValid is not supported: reset tokens are kept only as digests") }
        return policy
    }
}
