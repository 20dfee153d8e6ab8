import Contracts
import ParseWire

extension LiveQueryHub {
    /// Calls `body` on the hub's thread with the token's identity (nil without a token or for an invalid one),
    /// resolving it through auth first when it is not known yet.
    func withSession(_ token: String?, _ body: @escaping (Identity?) -> Void) {
        guard let token else { return body(nil) }
        switch sessions.states[token] {
        case .resolved(let identity): body(identity)
        case .resolving(let previous, let waiting):
            sessions.states[token] = .resolving(previous: previous, waiting: waiting + [body])
            sessionChecks.hurry(token)
        case nil:
            sessions.states[token] = .resolving(previous: nil, waiting: [body])
            resolve(token, urgent: true)
        }
    }

    /// Asks auth again, when `sessionChecks` has room (`urgent`: ahead of the re-checks); meanwhile the token keeps
    /// `previous` (nil after a revocation, so it sees nothing private).
    func resolve(_ token: String, urgent: Bool) {
        if sessionChecks.ask(token, urgent: urgent) { check(token) }
    }

    private func check(_ token: String) {
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
        let (stale, next) = sessionChecks.ended(token)
        // Asked about again since (a revocation, a role change): this answer may predate it; `next` checks it again.
        if !stale, case .resolving(_, let waiting) = sessions.states[token] {
            sessions.states[token] = .resolved(identity)
            for body in waiting { body(identity) }
            if sessions.users[token] == nil { sessions.states[token] = nil }
        }
        startChecks(next)
    }

    /// Starts the checks `sessionChecks` made room for; one whose token is gone meanwhile (its clients left) ends
    /// at once, making room for the next.
    private func startChecks(_ tokens: [String]) {
        var tokens = tokens
        while let token = tokens.popLast() {
            if case .resolving = sessions.states[token] { check(token) } else { tokens += sessionChecks.ended(token).next }
        }
    }

    /// A session of `userId` ended: every token of that user is checked again and sees nothing private meanwhile,
    /// including one whose check is under way (its answer may predate the revocation), and so is every token whose
    /// first check is under way, since its user is not known yet.
    func revoke(userId: String) {
        for (token, state) in sessions.states {
            switch state {
            case .resolved(let identity) where identity?.userId == userId:
                sessions.states[token] = .resolving(previous: nil, waiting: [])
            case .resolving(let previous, let waiting) where previous == nil || previous?.userId == userId:
                sessions.states[token] = .resolving(previous: nil, waiting: waiting)
            default:
                continue
            }
            resolve(token, urgent: true)
        }
    }

    /// Roles changed somewhere: every known session is checked again, keeping its identity until the answer; one
    /// whose check is under way is checked once more after it.
    func refreshRoles() {
        for (token, state) in sessions.states {
            switch state {
            case .resolved(let identity) where identity != nil:
                sessions.states[token] = .resolving(previous: identity, waiting: [])
            case .resolving:
                break
            default:
                continue
            }
            resolve(token, urgent: false)
        }
    }
}
