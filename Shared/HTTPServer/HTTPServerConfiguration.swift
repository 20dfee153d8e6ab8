/// Limits and bind address of an `HTTPServer`. The defaults suit a gateway on loopback.
public struct HTTPServerConfiguration: Sendable {
    /// IPv4 or IPv6 literal to bind. The server never binds every interface unless "0.0.0.0" or "::" is asked.
    public var host: String
    /// 0 picks a free port; read `HTTPServer.port` after `start()`.
    public var port: UInt16
    /// Size of the thread pool serving connections.
    public var threads: Int
    public var connectionLimit: Int
    /// 0 means unlimited.
    public var perIPConnectionLimit: Int
    /// Idle clients are dropped after this long. A connection waiting for its responder is not idle.
    public var connectionTimeoutSeconds: Int
    /// A connection must send a complete request head within this long of its accept or of its previous answer,
    /// however steadily it trickles bytes; 0: no such bound.
    public var headersTimeoutSeconds: Int
    /// Memory per connection: the request head, MHD's record of each header and query argument, and the answer's
    /// head are all built in it. libmicrohttpd zeroes all of it before each request of a kept-alive connection, so
    /// every request pays for its size. A head that nearly fills it is refused by libmicrohttpd itself, and not
    /// always with an answer; four times `maxHeadBytes` keeps that far beyond the heads that get 431.
    public var connectionMemoryLimit: Int
    /// Request heads above this get `headTooLarge` (`HeadSizeLimit`). The default is Node's, and so parse-server's.
    public var maxHeadBytes = 16 * 1024
    public var maxBodyBytes: Int
    /// Answered when a body exceeds `maxBodyBytes` (status 413 by default).
    public var payloadTooLarge: HTTPResponse
    /// Answered to a request head too large to answer (`HeadSizeLimit`). Its own head must stay small: it is built
    /// in what the request's head left of the connection's memory.
    public var headTooLarge = HTTPResponse(
        status: 431, headers: ["Content-Type": "application/json"],
        body: Array(#"{"error":"request header fields too large"}"#.utf8))
    /// Answered to requests the server refuses itself, such as conflicting body lengths (status 400 by default).
    public var badRequest: HTTPResponse
    /// Answered (status 503 by default) to requests still waiting for their responder when a shutdown's grace
    /// period ends, and to requests that arrive on open connections after that and are not answered immediately.
    public var serviceUnavailable: HTTPResponse
    /// Receives the HTTP library's own error messages (one line each); nil leaves them on standard error.
    public var errorLog: (@Sendable (String) -> Void)?
    /// Size of the parts an `HTTPStreamingResponder` reads a streamed body in; about two of them are buffered
    /// per request.
    public var streamPartBytes = 1 << 20
    /// Where WebSocket upgrades go (the gateway's LiveQuery pass-through); nil answers them as plain requests.
    public var upgradeUpstream: UpgradeUpstream?
    /// Request body bytes held at once (`BodyBudget`; streamed bodies do not count): a request that does not fit
    /// gets `bodyBudgetExceeded` before its body is read. Nil: no bound. Raised to `maxBodyBytes` when below it.
    public var bodyBytesInFlight: Int?
    /// Where the responder's task for a request with a small body runs (nil: the shared pool). The gateway gives
    /// the thread of its broker connection (`ConnectionExecutor`), where its commands go out and their replies
    /// come in. A large body's request goes to the pool, so that decoding it holds up no one else.
    public var smallRequestExecutor: (any TaskExecutor)?
    /// What counts as small there.
    public var smallRequestBytes = 64 * 1024
    /// Answered to a request whose body does not fit the budget now (503 with `Retry-After` by default).
    public var bodyBudgetExceeded = HTTPResponse(
        status: 503, headers: ["Content-Type": "application/json", "Retry-After": "1"],
        body: Array(#"{"error":"too many large requests at once; retry later"}"#.utf8))

    public init(host: String = "127.0.0.1",
                port: UInt16 = 1337,
                threads: Int = 2,
                connectionLimit: Int = 1000,
                perIPConnectionLimit: Int = 0,
                connectionTimeoutSeconds: Int = 10,
                headersTimeoutSeconds: Int = 0,
                connectionMemoryLimit: Int = 64 * 1024,
                maxBodyBytes: Int = 20 * 1024 * 1024,
                payloadTooLarge: HTTPResponse = .json(status: 413, #"{"error":"request entity too large"}"#),
                badRequest: HTTPResponse = .json(status: 400, #"{"error":"bad request"}"#),
                serviceUnavailable: HTTPResponse = .json(status: 503, #"{"error":"server is shutting down"}"#),
                errorLog: (@Sendable (String) -> Void)? = nil) {
        self.host = host
        self.port = port
        self.threads = threads
        self.connectionLimit = connectionLimit
        self.perIPConnectionLimit = perIPConnectionLimit
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.headersTimeoutSeconds = headersTimeoutSeconds
        self.connectionMemoryLimit = connectionMemoryLimit
        self.maxBodyBytes = maxBodyBytes
        self.payloadTooLarge = payloadTooLarge
        self.badRequest = badRequest
        self.serviceUnavailable = serviceUnavailable
        self.errorLog = errorLog
    }
}
