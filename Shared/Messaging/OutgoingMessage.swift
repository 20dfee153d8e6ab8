/// A message to publish. Commands and events are persistent; replies and pings need not be.
public struct OutgoingMessage: Sendable {
    public var exchange: String
    public var routingKey: String
    public var body: [UInt8]
    public var contentType: String
    public var correlationId: String?
    public var replyTo: String?
    public var messageId: String?
    public var type: String?
    public var persistent: Bool
    /// The broker drops the message if no consumer took it within this time (for requests nobody waits for any more).
    public var expirationMilliseconds: Int?
    public var headers: [String: String]

    public init(exchange: String = "", routingKey: String, body: [UInt8], contentType: String = "application/json",
                correlationId: String? = nil, replyTo: String? = nil, messageId: String? = nil, type: String? = nil,
                persistent: Bool = false, expirationMilliseconds: Int? = nil, headers: [String: String] = [:]) {
        self.exchange = exchange
        self.routingKey = routingKey
        self.body = body
        self.contentType = contentType
        self.correlationId = correlationId
        self.replyTo = replyTo
        self.messageId = messageId
        self.type = type
        self.persistent = persistent
        self.expirationMilliseconds = expirationMilliseconds
        self.headers = headers
    }
}
