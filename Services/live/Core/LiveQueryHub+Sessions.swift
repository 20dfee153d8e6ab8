import Contracts
import ParseWire

extension LiveQueryHub {
    /// Calls `body` on the hub's thread with the token's identity (nil without a token or for an invalid one),
    /// resolving it through auth first when it is not known yet.
    func withSession(_ token: String?, _ body: @escaping (Identity?) -> Void) {
        guard let token else { return body(nil) }
        switch sessions.states[token] {
        case .resolved(let identity): body(identity)
        case .resolving(let previous, let waiting): sessions.states[token] = .resolving(previous: previous, waiting: waiting + [body])
        case nil:
            sessions.states[token] = .resolving(previous: nil, waiting: [body])
            resolve(token)
        }
    }

    /// Asks auth again; meanwhile the token keeps `previous` (nil after a revocation, so it sees nothing private).
    func resolve(_ token: String) {
        let backend = self.backend
        backendCalls.spawn { [self] in
            let identity: Identity?
            do {
                identity = try await backend.identity(sessionToken: token)
            } catch let error as ParseError where error.code == .invalidSessionToken {
                identity = nil
            } catch {
                logger.warning("cannot resolve a session; it sees public objects only until it is checked again",
                               ["error": "\(error)"])
                identity = nil
            }
            onHub { [self] in resolved(token, identity) }
        }
    }

    private func resolved(_ token: String, _ identity: Identity?) {
        guard case .resolving(_, let waiting) = sessions.states[token] else { return }
        sessions.states[token] = .resolved(identity)
        for body in waiting { body(identity) }
        if sessions.users[token] == nil { sessions.states[token] = nil }
    }

    /// A session of `userId` ended: every token of that user is checked again and sees nothing private meanwhile.
    func revoke(userId: String) {
        for (token, state) in sessions.states {
            guard case .resolved(let identity) = state, identity?.userId == userId else { continue }
            sessions.states[token] = .resolving(previous: nil, waiting: [])
            resolve(token)
        }
    }

    /// Roles changed somewhere: every known session is checked again, keeping its identity until the answer.
    func refreshRoles() {
        for (token, state) in sessions.states {
            guard case .resolved(let identity) = state, identity != nil else { continue }
            sessions.states[token] = .resolving(previous: identity, waiting: [])
            resolve(token)
        }
    }
}
