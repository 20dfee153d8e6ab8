import Foundation
import ParseWire
import Runtime

/// The providers `authData` may name, configured as parse-server's `auth` option (`PARSE_SERVER_AUTH_PROVIDERS`,
/// a JSON object keyed by provider) and `enableAnonymousUsers` (`PARSE_SERVER_ENABLE_ANON_USERS`).
struct AuthProviders: Sendable {
    var enableAnonymousUsers = true
    var options: [String: JSONValue] = [:]
    /// The providers' signing keys fetched so far, for every copy of these settings.
    var keys = JWKSCache()
    /// `auth.mfa`, when configured and not switched off: an additional factor, not a way to log in by itself, so
    /// handled apart from the others (`multiFactorStep`, and `LoginHandler`).
    var multiFactor: MultiFactorAuth?

    static let unsupported = ParseError(.unsupportedService, "This authentication method is unsupported.")

    static func fromEnvironment(_ env: Environment) throws -> AuthProviders {
        var providers = AuthProviders()
        if let text = env.optional("PARSE_SERVER_ENABLE_ANON_USERS") {
            switch text.lowercased() {
            case "true", "1", "yes": providers.enableAnonymousUsers = true
            case "false", "0", "no": providers.enableAnonymousUsers = false
            default: throw ConfigurationError("PARSE_SERVER_ENABLE_ANON_USERS must be true or false, got '\(text)'")
            }
        }
        if let text = env.optional("PARSE_SERVER_AUTH_PROVIDERS") {
            guard let options = JSONValue.parse(text)?.objectValue, options.values.allSatisfy({ $0.objectValue != nil }) else {
                throw ConfigurationError("PARSE_SERVER_AUTH_PROVIDERS must be a JSON object of provider options, like {\"apple\":{\"clientId\":\"...\"}}")
            }
            providers.options = options
            if let mfa = options["mfa"]?.objectValue, mfa["enabled"]?.boolValue != false {
                providers.multiFactor = try MultiFactorAuth(options: mfa)
            }
        }
        return providers
    }

    /// The provider called `name`, or nil when it is unknown or switched off (`"enabled": false`). As in
    /// parse-server, `github` and `facebook` work without options; `apple` and `google` need a `clientId` here
    /// (parse-server would accept tokens issued to any app); another name with `jwksUrl` and `issuer` is a
    /// generic OpenID provider. `jwksUrl`, `apiURL` and `graphURL` replace the providers' own addresses.
    func provider(_ name: String) -> (any AuthProvider)? {
        let settings = options[name]?.objectValue ?? [:]
        if settings["enabled"]?.boolValue == false { return nil }
        let url = { (key: String, fallback: String) -> String in
            var value = settings[key]?.stringValue ?? fallback
            while value.hasSuffix("/") { value.removeLast() }
            return value
        }
        let clientIds = settings["clientId"].map { $0.arrayValue?.compactMap(\.stringValue) ?? [$0.stringValue].compactMap { $0 } } ?? []
        let maxAge = Duration.milliseconds(Int(settings["cacheMaxAge"]?.numberValue ?? 3_600_000))
        switch name {
        case "anonymous":
            return enableAnonymousUsers ? AnonymousAuthProvider() : nil
        case "apple":
            guard !clientIds.isEmpty else { return nil }
            return IdentityTokenProvider(tokenFields: ["token"], issuers: ["https://appleid.apple.com"],
                issuerError: "id token not issued by correct OpenID provider - expected: https://appleid.apple.com",
                clientIds: clientIds, jwksURL: url("jwksUrl", "https://appleid.apple.com/auth/keys"), cacheMaxAge: maxAge, keys: keys)
        case "google":
            guard !clientIds.isEmpty else { return nil }
            return IdentityTokenProvider(tokenFields: ["id_token"], issuers: ["accounts.google.com", "https://accounts.google.com"],
                issuerError: "id token not issued by correct provider - expected: accounts.google.com or https://accounts.google.com",
                clientIds: clientIds, jwksURL: url("jwksUrl", "https://www.googleapis.com/oauth2/v3/certs"), cacheMaxAge: maxAge, keys: keys)
        case "github":
            return GitHubAuthProvider(apiURL: url("apiURL", "https://api.github.com"))
        case "facebook":
            return FacebookAuthProvider(graphURL: url("graphURL", "https://graph.facebook.com"), appIds: settings["appIds"])
        default:
            guard let jwks = settings["jwksUrl"]?.stringValue, let issuer = settings["issuer"]?.stringValue else { return nil }
            return IdentityTokenProvider(tokenFields: ["id_token", "token"], issuers: [issuer],
                issuerError: "id token not issued by correct OpenID provider - expected: \(issuer)",
                clientIds: clientIds, jwksURL: jwks, cacheMaxAge: maxAge, keys: keys)
        }
    }

    /// The `mfa` entry of `authData` as it is to be stored, for a user whose `authData` is `stored` (empty for a new
    /// user): set up, or replaced by its owner or the master key (parse-server's `validateSetUp` and
    /// `validateUpdate`). Nil when `authData` has no `mfa`, or removes it (which parse-server checks no further).
    func multiFactorStep(_ authData: AuthData, stored: [String: JSONValue], isMaster: Bool) throws -> MultiFactorAuth.Step? {
        guard let data = authData.entries["mfa"], !data.isNull else { return nil }
        guard let multiFactor else { throw Self.unsupported }
        if let existing = stored["mfa"] { return try multiFactor.update(data, stored: existing, isMaster: isMaster) }
        return try multiFactor.setUp(data)
    }

    /// At a login of a user whose `authData` is `stored`, with `sent` in the request (parse-server's "additional"
    /// policy and `validateLogin`): a user with `mfa` must send its current code or a recovery code too, which is
    /// checked and not stored; a user without may set it up here. The step to store, if any.
    func loginFactor(_ sent: AuthData?, stored: [String: JSONValue]) throws -> MultiFactorAuth.Step? {
        let data = sent?.entries["mfa"].flatMap { $0.isNull ? nil : $0 }
        guard let multiFactor else {
            if data != nil { throw Self.unsupported }
            return nil
        }
        if let existing = stored["mfa"] {
            guard let data else { throw MultiFactorAuth.missing }
            try multiFactor.checkLogin(data["token"], stored: existing)
            return nil
        }
        return try data.map { try multiFactor.setUp($0) }
    }

    /// parse-server's step-by-step validation: providers in name order, an unlink (`null`) needs no check, and the
    /// first failure stops the rest (so a later provider is never called for a request that fails anyway).
    func validate(_ authData: AuthData) async throws {
        for (name, data) in authData.entries.sorted(by: { $0.key < $1.key }) {
            guard let data = data.objectValue else { continue }
            if name == "mfa" {
                guard multiFactor != nil else { throw Self.unsupported }
                continue
            }
            guard let provider = provider(name) else { throw Self.unsupported }
            try await provider.validate(data)
        }
    }
}
