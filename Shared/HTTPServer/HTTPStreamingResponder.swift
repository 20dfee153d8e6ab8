/// A responder that can take some request bodies as a stream of bounded parts instead of whole, so a large
/// upload never sits in memory: the server stops reading from the client while the responder is behind.
public protocol HTTPStreamingResponder: HTTPResponder {
    /// Decided from the head alone, on the server's thread: it must be cheap and must not block.
    func streamsBody(of head: HTTPRequest) -> Bool

    /// Answers a request whose body arrives through `body` (`head.body` is empty). The responder may answer
    /// before reading all of it; the rest is then read and dropped before the answer is sent, as HTTP/1.1 needs.
    func respond(to head: HTTPRequest, body: HTTPBodyStream) async -> HTTPResponse
}
