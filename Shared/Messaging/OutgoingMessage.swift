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
    /// May travel in a `MessageBatch` with other messages for the same queue. A process that dies redelivers its
    /// unacked batches whole, re-running parts it had already answered: a command whose second run would do
    /// harm (an object create, an increment not keyed by an id) travels alone, like one before batches.
    public var coalescible: Bool

    public init(exchange: String = "", routingKey: String, body: [UInt8], contentType: String = "application/json",
                correlationId: String? = nil, replyTo: String? = nil, messageId: String? = nil, type: String? = nil,
                persistent: Bool = false, expirationMilliseconds: Int? = nil, headers: [String: String] = [:],
                coalescible: Bool = true) {
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
        self.coalescible = coalescible
    }
}
