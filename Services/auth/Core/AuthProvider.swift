import ParseWire

/// Checks one provider's `authData` (for example that its token really names that id) before it is stored or
/// used to log in. A provider throws the Parse error parse-server's adapter of the same name throws.
protocol AuthProvider: Sendable {
    func validate(_ authData: [String: JSONValue]) async throws
}

/// parse-server's `anonymous` adapter: any id is accepted; the id is the secret the device keeps.
struct AnonymousAuthProvider: AuthProvider {
    func validate(_ authData: [String: JSONValue]) async throws {}
}
