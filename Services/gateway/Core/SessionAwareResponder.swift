import HTTPServer

/// Wraps the gateway's responder: after a request that can end sessions (logout, a user or session changed or
/// deleted) it drops the caller's cached sessions here at once; other replicas learn it from `session.revoked`.
struct SessionAwareResponder: HTTPResponder {
    let inner: GatewayResponder
    let resolver: AuthSessionResolver

    func immediateResponse(to request: HTTPRequest) -> HTTPResponse? {
        inner.immediateResponse(to: request)
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let response = await inner.respond(to: request)
        // The route is checked first: it is cheap, and only those few routes need their body read again.
        if endsSessions(request), let token = sessionToken(request) { resolver.forget(token) }
        return response
    }

    private func sessionToken(_ request: HTTPRequest) -> String? {
        if let token = request.headers["X-Parse-Session-Token"] { return token }
        return (try? JSONBody(request.body))?.envelope["_SessionToken"]
    }

    private func endsSessions(_ request: HTTPRequest) -> Bool {
        guard let path = inner.routePath(request.path) else { return false }
        let segments = path.split(separator: "/").map(String.init)
        var first = segments.first ?? ""
        if first == "classes" {
            first = switch segments.dropFirst().first {
            case "_User": "users"
            case "_Session": "sessions"
            default: ""
            }
        }
        switch first {
        case "logout":
            return true
        case "users", "sessions":
            let method = request.method == "POST" ? ((try? JSONBody(request.body))?.envelope["_method"] ?? "POST") : request.method
            return method == "PUT" || method == "DELETE"
        default:
            return false
        }
    }
}
