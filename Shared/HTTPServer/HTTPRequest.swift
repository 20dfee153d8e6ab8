/// A complete HTTP request: head and body, received in full before it reaches a responder.
public struct HTTPRequest: Sendable, Equatable {
    /// "GET", "POST", ... exactly as sent.
    public var method: String
    /// Percent-decoded path without the query string, e.g. "/parse/health".
    public var path: String
    /// Percent-decoded query items in the order they were sent.
    public var query: [QueryItem]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The peer's IP address ("127.0.0.1", "::1", ...), or "" when unknown.
    public var remoteAddress: String

    public init(method: String, path: String, query: [QueryItem] = [], headers: HTTPHeaders = HTTPHeaders(),
                body: [UInt8] = [], remoteAddress: String = "") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The first value of the query item `name`, if present.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}
