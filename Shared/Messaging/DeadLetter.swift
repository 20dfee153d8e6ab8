/// A command that ended in `<queue>.dead`: it failed `PARSE_MAX_DELIVERY_ATTEMPTS` times (`reason` "rejected"),
/// or waited in its queue past its expiration with nobody consuming it ("expired": the caller had long had its
/// 504).
public struct DeadLetter: Sendable {
    public var body: [UInt8]
    public var contentType: String?
    public var type: String?
    public var messageId: String?
    public var correlationId: String?
    /// String and integer headers (`x-attempts`, file headers); RabbitMQ's `x-death` is read into `reason`.
    public var headers: [String: String]
    /// RabbitMQ's reason for dead-lettering it: `rejected`, `expired`, `maxlen`.
    public var reason: String?
    /// The queue it was dead-lettered from.
    public var fromQueue: String?
}
