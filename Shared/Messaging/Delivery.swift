/// A message received from a queue. Acknowledge it through the connection it came from once its effects are
/// committed; a delivery from before a reconnect can no longer be acknowledged and will come again.
public struct Delivery: Sendable {
    public var body: [UInt8]
    public var exchange: String
    public var routingKey: String
    public var correlationId: String?
    public var replyTo: String?
    public var messageId: String?
    public var type: String?
    public var headers: [String: String]
    public var redelivered: Bool
    let tag: UInt64
    let generation: Int
    /// Set when this delivery was one part of a `MessageBatch`: the broker's message is acknowledged once every
    /// part is settled.
    var batch: BatchSettlement? = nil
}

extension Delivery {
    /// A delivery made outside a connection (a bus double's); it settles nothing on a broker.
    public init(body: [UInt8], routingKey: String, correlationId: String? = nil, replyTo: String? = nil,
                messageId: String? = nil, type: String? = nil, headers: [String: String] = [:]) {
        self.init(body: body, exchange: "", routingKey: routingKey, correlationId: correlationId, replyTo: replyTo,
                  messageId: messageId, type: type, headers: headers, redelivered: false, tag: 0, generation: -1)
    }
}
