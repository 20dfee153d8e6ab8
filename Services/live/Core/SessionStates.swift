import Contracts

/// The sessions the hub's subscriptions see with, by token: resolved once through `auth` and again whenever
/// `session.revoked` names their user or `role.changed` arrives. While a token is being checked after a
/// revocation it sees nothing, so a logged-out session stops receiving at once.
struct SessionStates {
    enum State {
        case resolving(previous: Identity?, waiting: [(Identity?) -> Void])
        /// nil: the token is not (or no longer) a session; the subscription sees what the public sees.
        case resolved(Identity?)
    }

    var states: [String: State] = [:]
    var users: [String: Int] = [:]

    /// The identity to filter with now; nil while unknown or for an invalid token.
    func current(_ token: String?) -> Identity? {
        guard let token else { return nil }
        switch states[token] {
        case .resolved(let identity): return identity
        case .resolving(let previous, _): return previous
        case nil: return nil
        }
    }

    mutating func retain(_ token: String) { users[token, default: 0] += 1 }

    mutating func release(_ token: String) {
        let count = (users[token] ?? 1) - 1
        if count <= 0 {
            users[token] = nil
            states[token] = nil
        } else {
            users[token] = count
        }
    }
}
