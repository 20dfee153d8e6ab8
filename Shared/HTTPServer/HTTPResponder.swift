/// The application side of the server: turns requests into responses.
public protocol HTTPResponder: Sendable {
    /// Answered synchronously on the server's own thread (no suspend/resume), for cheap static routes such as a
    /// health check. Return nil to go to `respond(to:)`. It must not block: it holds up every connection served
    /// by the same thread.
    func immediateResponse(to request: HTTPRequest) -> HTTPResponse?

    /// Answered on the Swift concurrency pool while the connection waits. It should not take longer than the
    /// client is willing to wait: a waiting connection is not timed out and does not notice its client leaving.
    func respond(to request: HTTPRequest) async -> HTTPResponse
}

extension HTTPResponder {
    public func immediateResponse(to request: HTTPRequest) -> HTTPResponse? { nil }
}
