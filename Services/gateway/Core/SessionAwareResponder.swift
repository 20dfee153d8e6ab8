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
        let response = await inner.respond(to: request)
        let effect = self.effect(of: request)
        if effect.contains(.changesRoles) { resolver.forgetRoles() }
        if effect.contains(.endsSessions), let token = sessionToken(request) { resolver.forget(token) }
        return response
    }

    private func sessionToken(_ request: HTTPRequest) -> String? {
        if let token = request.headers["X-Parse-Session-Token"] { return token }
        return (try? JSONBody(request.body))?.envelope["_SessionToken"]
    }

    /// The route is checked first: it is cheap, and only those few routes need their body read again.
    private func effect(of request: HTTPRequest) -> SessionEffect {
        guard request.method == "POST" || request.method == "PUT" || request.method == "DELETE" else { return [] }
        guard let path = inner.routePath(request.path) else { return [] }
        // A PUT has an effect on every route where some write has one: other routes skip reading the body again.
        guard path == "batch" || SessionEffect(method: "PUT", route: path) != [] else { return [] }
        let body = try? JSONBody(request.body)
        let method = request.method == "POST" ? (body?.envelope["_method"] ?? "POST") : request.method
        guard path == "batch" else { return SessionEffect(method: method, route: path) }
        guard let batch = BatchRequest(body: body?.payload, mountPath: inner.configuration.mountPath) else { return [] }
        return batch.items.reduce(into: SessionEffect()) { effect, item in
            if let route = item.route { effect.formUnion(SessionEffect(method: item.method, route: route)) }
        }
    }
}
