/// What the frame parser hands on: a whole data message (fragments joined) or a control frame.
public enum WebSocketMessage: Equatable, Sendable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// The peer's close frame; `code` is nil when it carried no status.
    case close(code: UInt16?, reason: String)
}

/// A frame that breaks RFC 6455 or this server's limits: the connection is closed with `code`.
public struct WebSocketProtocolError: Error, Equatable, Sendable {
    public var code: WebSocketCloseCode
    public var reason: String

    public init(_ code: WebSocketCloseCode, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
