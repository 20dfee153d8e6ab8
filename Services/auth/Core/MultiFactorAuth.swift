import Foundation
import ParseWire
import Runtime

/// parse-server's `mfa` auth adapter with its TOTP option (`auth.mfa`: `options`, `digits`, `period`, `algorithm`):
/// a user enrols by saving `authData.mfa` `{secret, token}` (the secret base32, at least 20 characters, the token
/// its current code), gets two recovery codes back once (`authDataResponse.mfa.recovery`), and from then on logs
/// in with `authData.mfa.token` beside the password. Its SMS option needs parse-server's `sendSMS` callback, a
/// JavaScript function, and is not offered.
struct MultiFactorAuth: Sendable, Equatable {
    var digits: Int
    var period: Int
    var algorithm: String

    /// What a step stores as the user's `authData.mfa`, and what the client gets back in `authDataResponse.mfa`.
    struct Step: Equatable {
        var save: JSONValue
        var response: JSONValue?
    }

    static let invalidToken = ParseError(.scriptFailed, "Invalid MFA token")
    static let invalidData = ParseError(.scriptFailed, "Invalid MFA data")
    static let missing = ParseError(.otherCause, "Missing additional authData mfa")

    init(digits: Int = 6, period: Int = 30, algorithm: String = "SHA1") {
        self.digits = digits
        self.period = period
        self.algorithm = algorithm
    }

    /// The options as parse-server checks them at start, with its messages.
    init(options: [String: JSONValue]) throws {
        self.init()
        guard let kinds = options["options"]?.arrayValue?.compactMap(\.stringValue) else {
            throw ConfigurationError("mfa.options must be an array")
        }
        guard kinds.contains("TOTP") else {
            throw ConfigurationError(kinds.contains("SMS")
                ? "mfa.options SMS is not supported here (it needs parse-server's sendSMS callback); use TOTP"
                : "mfa.options must include SMS or TOTP")
        }
        if let value = options["digits"] {
            guard let number = value.numberValue else { throw ConfigurationError("mfa.digits must be a number") }
            guard (4...10).contains(number) else { throw ConfigurationError("mfa.digits must be between 4 and 10") }
            digits = Int(number)
        }
        if let value = options["period"] {
            guard let number = value.numberValue else { throw ConfigurationError("mfa.period must be a number") }
            guard number >= 10, number <= 86_400 else { throw ConfigurationError("mfa.period must be greater than 10") }
            period = Int(number)
        }
        if let value = options["algorithm"] {
            guard let name = value.stringValue, TOTP.algorithms.contains(name) else {
                throw ConfigurationError("mfa.algorithm must be one of \(TOTP.algorithms.joined(separator: ", "))")
            }
            algorithm = name
        }
    }

    /// parse-server's `validateSetUp`: the client proves it holds the secret with its current code; the secret
    /// and two recovery codes are stored, and the codes answered once.
    func setUp(_ data: JSONValue, now: Date = Date()) throws -> Step {
        guard let secret = data["secret"]?.stringValue, let token = data["token"]?.stringValue, secret.count >= 20,
              let key = Base32.decode(secret), !key.isEmpty else { throw Self.invalidData }
        guard totp(key).accepts(token, at: Int64(now.timeIntervalSince1970)) else { throw Self.invalidToken }
        let recovery = [Self.recoveryCode(), Self.recoveryCode()]
        return Step(save: .object(["secret": .string(secret), "recovery": .array(recovery.map(JSONValue.string))]),
                    response: .object(["recovery": .string(recovery.joined(separator: ", "))]))
    }

    /// parse-server's `validateLogin`: the token is the secret's current code or one of the recovery codes. A user
    /// whose `mfa` holds no secret passes.
    func checkLogin(_ token: JSONValue?, stored: JSONValue, now: Date = Date()) throws {
        guard let token = token?.stringValue else { throw Self.invalidToken }
        guard let secret = stored["secret"]?.stringValue else { return }
        let recovery = stored["recovery"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if recovery.prefix(2).contains(where: { SessionTokenDigest.constantTimeEqual(Array($0.utf8), Array(token.utf8)) }) {
            return
        }
        guard let key = Base32.decode(secret), totp(key).accepts(token, at: Int64(now.timeIntervalSince1970)) else {
            throw Self.invalidToken
        }
    }

    /// parse-server's `validateUpdate` for a user who has `mfa` already: the master key replaces it as given;
    /// the user proves the old secret (`old`: its code, or a recovery code) and sets up the new one.
    func update(_ data: JSONValue, stored: JSONValue, isMaster: Bool, now: Date = Date()) throws -> Step {
        if isMaster { return Step(save: data, response: nil) }
        try checkLogin(data["old"], stored: stored, now: now)
        return try setUp(data, now: now)
    }

    /// parse-server's `afterFind`: anyone but the master key sees whether MFA is on, never the secret.
    static func clientView(_ stored: JSONValue) -> JSONValue {
        .object(["status": .string(stored["secret"]?.stringValue != nil ? "enabled" : "disabled")])
    }

    private func totp(_ key: [UInt8]) -> TOTP {
        TOTP(secret: key, digits: digits, period: period, algorithm: algorithm)
    }

    /// parse-server's `randomString(30)`: letters and digits.
    private static func recoveryCode() -> String {
        let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        // 62 characters: bytes at or above 248 are drawn again, so every character is equally likely.
        var code: [UInt8] = []
        while code.count < 30 {
            for byte in RandomPool.bytes(32) where byte < 248 && code.count < 30 {
                code.append(characters[Int(byte) % 62])
            }
        }
        return String(decoding: code, as: UTF8.self)
    }
}
