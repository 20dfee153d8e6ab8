import HTTPServer

/// Wraps the gateway's responder: after a request that can end sessions (logout, a user or session changed or
/// deleted) it drops the caller's cached sessions here at once, and after a write to a role every cached
/// identity; other replicas learn it from `session.revoked` and `role.changed`. A batch counts with its
/// sub-requests.
struct SessionAwareResponder: HTTPResponder {
    let inner: GatewayResponder
    let resolver: AuthSessionResolver

    func immediateResponse(to request: HTTPRequest) -> HTTPResponse? {
        inner.immediateResponse(to: request)
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        await respond(to: request, route: inner.routePath(request.path))
    }

    /// `route`: `GatewayResponder.routePath(request.path)`, decided by the caller.
    func respond(to request: HTTPRequest, route: String?) async -> HTTPResponse {
        let answer = await inner.answer(request, route: route)
        let effect = self.effect(of: answer, route: route)
        if effect.contains(.changesRoles) { resolver.forgetRoles() }
        if effect.contains(.endsSessions),
           let token = request.headers["X-Parse-Session-Token"] ?? answer.body?.envelope["_SessionToken"] {
            resolver.forget(token)
        }
        return answer.response
    }

    /// From the body the responder parsed: a request answered before its body was read changed nothing.
    private func effect(of answer: GatewayAnswer, route: String?) -> SessionEffect {
        guard let route, answer.body != nil,
              answer.method == "POST" || answer.method == "PUT" || answer.method == "DELETE" else { return [] }
        guard route == "batch" else { return SessionEffect(method: answer.method, route: route) }
        guard let batch = answer.batch else { return [] }
        return batch.items.reduce(into: SessionEffect()) { effect, item in
            if let route = item.route { effect.formUnion(SessionEffect(method: item.method, route: route)) }
        }
    }
}
