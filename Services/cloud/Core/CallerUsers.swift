import Contracts
import Messaging
import ParseWire
import Runtime

/// The user a target sees: the caller's own, read from auth for the identity the gateway resolved, with the
/// session token the caller presented (parse-server's `request.user` carries it), so a target can call the API back
/// as the caller. Nothing a target answers can change it.
struct CallerUsers: Sendable {
    let calls: RPCClient
    let timeout: Duration

    func user(for identity: Identity, requestId: String) async throws -> JSONValue? {
        guard let userId = identity.userId else { return nil }
        let bound = Deadline.current.map { min(timeout, $0.remaining) } ?? timeout
        let found: UserLookupResult
        do {
            found = try await calls.send(UserLookup.type, UserLookup(objectIds: [userId]), to: .auth,
                                         requestId: requestId + ".user", identity: .master, timeout: bound)
        } catch let error as MessagingError {
            throw error.parseError
        }
        guard var fields = found.users[userId] else { return nil }
        fields["className"] = nil
        fields["__type"] = nil
        if let token = identity.sessionToken { fields["sessionToken"] = .string(token) }
        return .object(fields)
    }
}
