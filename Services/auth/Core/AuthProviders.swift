import Foundation
import ParseWire
import Runtime

/// The providers `authData` may name, configured as parse-server's `auth` option (`PARSE_SERVER_AUTH_PROVIDERS`,
/// a JSON object keyed by provider) and `enableAnonymousUsers` (`PARSE_SERVER_ENABLE_ANON_USERS`).
struct AuthProviders: Sendable {
    var enableAnonymousUsers = true
    var options: [String: JSONValue] = [:]

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
        }
        return providers
    }

    /// The provider called `name`, or nil when it is unknown or switched off (`"enabled": false`).
    func provider(_ name: String) -> (any AuthProvider)? {
        if options[name]?["enabled"]?.boolValue == false { return nil }
        switch name {
        case "anonymous": return enableAnonymousUsers ? AnonymousAuthProvider() : nil
        default: return nil
        }
    }

    /// parse-server's step-by-step validation: providers in name order, an unlink (`null`) needs no check, and the
    /// first failure stops the rest (so a later provider is never called for a request that fails anyway).
    func validate(_ authData: AuthData) async throws {
        for (name, data) in authData.entries.sorted(by: { $0.key < $1.key }) {
            guard let data = data.objectValue else { continue }
            guard let provider = provider(name) else { throw Self.unsupported }
            try await provider.validate(data)
        }
    }
}
