/// RFC 6455 section 7.4 close codes this server sends, and which codes a peer may send.
public enum WebSocketCloseCode: UInt16, Sendable {
    case normal = 1000
    case goingAway = 1001
    case protocolError = 1002
    case unsupportedData = 1003
    case invalidPayload = 1007
    case policyViolation = 1008
    case messageTooBig = 1009
    case internalError = 1011
    /// The client reads slower than events arrive: its queue of frames reached its bound.
    case tryAgainLater = 1013
    /// graphql-transport-ws: a message that is not one of the protocol's.
    case badRequest = 4400
    /// graphql-transport-ws: `subscribe` before the connection was acknowledged.
    case unauthorized = 4401
    /// graphql-transport-ws: `connection_init` refused (keys, or the beforeConnect trigger).
    case forbidden = 4403
    /// graphql-transport-ws: a `subscribe` whose id is in use.
    case subscriberAlreadyExists = 4409
    /// graphql-transport-ws: a second `connection_init`.
    case tooManyInitialisationRequests = 4429

    /// Codes a peer may put in its close frame (1005, 1006 and 1015 are never sent on the wire).
    public static func isValidOnWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}
