import ParseWire
import Query

/// A user's `authData` as a request gives it: provider name -> that provider's data, `null` to unlink it.
struct AuthData: Sendable, Equatable {
    var entries: [String: JSONValue]

    /// Parses the body's `authData`; nil for `{}`, which parse-server treats as absent. Anything but an object of
    /// objects and nulls is an unsupported method, as in parse-server.
    static func parse(_ value: JSONValue) throws -> AuthData? {
        guard let object = value.objectValue else { throw AuthProviders.unsupported }
        if object.isEmpty { return nil }
        for (name, data) in object {
            guard data.isNull || data.objectValue != nil, !name.isEmpty, name.utf8.count <= 64,
                  name.utf8.allSatisfy({ $0 > 0x20 && $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "$") }) else {
                throw AuthProviders.unsupported
            }
            try ValueStorage.checkNestedKeys(data)
        }
        return AuthData(entries: object)
    }

    /// The provider's user id as stored in `user_identities`: a string as is, a number as JSON writes it.
    static func identifier(_ data: JSONValue) -> String? {
        switch data["id"] {
        case .string(let text)? where !text.isEmpty: return text
        case .number(let number)?: return JSONText.format(number)
        case .bool(true)?: return "true"
        default: return nil
        }
    }

    /// (provider, id) for every linked provider that names an id.
    var identities: [(provider: String, id: String)] {
        entries.sorted { $0.key < $1.key }.compactMap { name, data in Self.identifier(data).map { (name, $0) } }
    }

    /// parse-server's first test: at least one provider has an id, or is being unlinked.
    var canLogIn: Bool {
        entries.values.contains { $0.isNull || Self.identifier($0) != nil }
    }

    /// parse-server sends verification mails to users with no provider but `anonymous`.
    var onlyAnonymous: Bool { entries.keys.allSatisfy { $0 == "anonymous" } }

    /// The providers as `createdWith.authProvider` names them.
    var providerNames: String { entries.keys.sorted().joined(separator: ",") }

    /// `stored` with these changes applied: a provider set replaces its entry, `null` removes it.
    func applied(to stored: [String: JSONValue]) -> [String: JSONValue] {
        var result = stored
        for (name, data) in entries {
            if data.isNull { result[name] = nil } else { result[name] = data }
        }
        return result
    }

    /// The entries that differ from what is stored, ignoring `anonymous` (parse-server's `hasMutatedAuthData`).
    func changes(from stored: [String: JSONValue]) -> AuthData {
        AuthData(entries: entries.filter { name, data in name != "anonymous" && stored[name] != data })
    }
}
