/// The bounds one `live` process keeps per connection and in all.
public struct SocketLoopLimits: Sendable {
    /// Open WebSocket connections at most; later ones are refused at accept.
    public var maximumConnections: Int
    /// The largest message a client may send (a frame or fragments joined).
    public var maximumMessageSize: Int
    /// Bytes queued for one client that it has not read yet; past this the client is closed with 1013.
    public var maximumPendingBytes: Int
    /// A ping goes to every client this often; one that has not answered the previous ping is closed.
    public var pingInterval: Duration
    /// How long a closing connection may take to flush its last frames before its socket is closed.
    public var closeGrace: Duration

    public init(maximumConnections: Int = 20_000, maximumMessageSize: Int = 1 << 20, maximumPendingBytes: Int = 4 << 20,
                pingInterval: Duration = .seconds(10), closeGrace: Duration = .seconds(2)) {
        self.maximumConnections = maximumConnections
        self.maximumMessageSize = maximumMessageSize
        self.maximumPendingBytes = maximumPendingBytes
        self.pingInterval = pingInterval
        self.closeGrace = closeGrace
    }
}
