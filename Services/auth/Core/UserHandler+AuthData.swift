import ParseWire

extension UserHandler {
    /// Linking and unlinking on `PUT /users/<id>`, parse-server's rules: a provider id linked to another user is a
    /// conflict (208, after validating, as parse-server does); new or changed provider data is validated; data the
    /// user already has is not. Returns the `authData` the user will have.
    func checkLinks(_ authData: AuthData, of user: UserRecord, changes: UserChanges, isMaster: Bool) async throws
        -> [String: JSONValue] {
        let found = try await UserIdentityStore(pool: pool).users(linkedTo: authData, isMaster: isMaster)
        if found.count > 1 || found.first.map({ $0.id != user.id }) == true {
            try await settings.providers.validate(authData)
            throw UserIdentityStore.alreadyLinked
        }
        if found.isEmpty {
            try await settings.providers.validate(authData)
        } else {
            try await settings.providers.validate(authData.changes(from: user.authData))
        }
        let merged = authData.applied(to: user.authData)
        // Unlinking the last provider of a user without a password would leave nobody able to log in as them;
        // the master key may still do it (an SDK upgrading an anonymous user sets the password in the same call).
        if !isMaster, merged.isEmpty, user.passwordHash == nil, changes.password == nil {
            throw Self.lastLoginMethod
        }
        return merged
    }

    static let lastLoginMethod = ParseError(.validationError,
        "A user without a password must keep at least one linked authentication provider.")
}
