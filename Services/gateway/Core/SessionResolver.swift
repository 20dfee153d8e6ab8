import Contracts

/// Turns the session token a request carries into the identity commands travel with (user id, roles).
/// Throws the `ParseError` the client gets for a token that is unknown or expired (code 209).
public protocol SessionResolver: Sendable {
    func identity(for sessionToken: String, requestId: String) async throws -> Identity
}

/// Until sessions are resolved by the auth service, the token travels unresolved in the identity.
public struct UnresolvedSessions: SessionResolver {
    public init() {}

    public func identity(for sessionToken: String, requestId: String) async throws -> Identity {
        Identity(sessionToken: sessionToken)
    }
}
