import Contracts
import Messaging
import ParseWire
import Runtime

/// Reads `_User` objects, which the auth service owns, for `include`: one `users.lookup.v1` call answers for a
/// whole set of ids, with the caller's identity, so auth applies its own visibility rules.
struct UserDirectory: Sendable {
    /// Readable users by object id; absent ids are missing or unreadable for `identity`.
    let lookup: @Sendable (_ objectIds: [String], _ identity: Identity, _ requestId: String) async throws
        -> [String: [String: JSONValue]]

    /// Half the gateway's request timeout (`ServiceConfiguration.requestTimeout`), so that when auth is silent
    /// posts still answers the client with its own Parse error naming auth, before the gateway gives up on posts.
    static func timeout(requestTimeout: Duration) -> Duration { requestTimeout / 2 }

    static func auth(_ client: RPCClient, timeout: Duration) -> UserDirectory {
        UserDirectory { objectIds, identity, requestId in
            var users: [String: [String: JSONValue]] = [:]
            // One call per query in practice; only a page with more distinct users than a lookup allows is split.
            for start in stride(from: 0, to: objectIds.count, by: UserLookup.maxObjectIds) {
                let chunk = Array(objectIds[start..<min(start + UserLookup.maxObjectIds, objectIds.count)])
                do {
                    let result = try await client.send(UserLookup.type, UserLookup(objectIds: chunk), to: .auth,
                                                       requestId: requestId, identity: identity, timeout: timeout,
                                                       expecting: UserLookupResult.self)
                    users.merge(result.users) { first, _ in first }
                } catch let error as MessagingError {
                    // Answering with the pointers left unexpanded would look like success while silently
                    // changing the answer's shape; the client gets the transport's error (124 timeout, 100
                    // broker unreachable) and may retry.
                    throw error.parseError
                }
            }
            return users
        }
    }
}
