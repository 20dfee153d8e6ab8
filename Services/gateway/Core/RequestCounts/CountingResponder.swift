import HTTPServer

/// Counts every answer given below the mount (`RequestCounter`), by method, route template and status.
struct CountingResponder: HTTPStreamingResponder {
    let inner: SessionAwareResponder
    let counter: RequestCounter

    func immediateResponse(to request: HTTPRequest) -> HTTPResponse? {
        guard let response = inner.immediateResponse(to: request) else { return nil }
        count(request, response)
        return response
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let response = await inner.respond(to: request)
        count(request, response)
        return response
    }

    func streamsBody(of head: HTTPRequest) -> Bool { inner.streamsBody(of: head) }

    func respond(to head: HTTPRequest, body: HTTPBodyStream) async -> HTTPResponse {
        let response = await inner.respond(to: head, body: body)
        count(head, response)
        return response
    }

    private func count(_ request: HTTPRequest, _ response: HTTPResponse) {
        guard request.method != "OPTIONS", let route = inner.inner.routePath(request.path) else { return }
        counter.record(method: request.method, route: route, status: response.status)
    }
}
