/// What a responder answers. The server adds `Content-Length` and `Date` itself; any `Content-Length` given
/// here is ignored because it could only disagree with the body.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// When set, the body is produced while it is sent (and `body` is ignored); see `HTTPResponseStream`.
    public var stream: HTTPResponseStream?

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is `json` (already serialised), typed `application/json`.
    public static func json(status: Int, _ json: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8"],
                     body: Array(json.utf8))
    }
}
