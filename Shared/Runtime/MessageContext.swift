/// The message a task is handling: the messages it sends name it as their cause (`x-causation-id`), and the lines
/// it logs name it (`msg.id`) and the request it belongs to (`request.id`), whichever logger writes them.
public struct MessageContext: Sendable, Equatable {
    /// Set by each service while it handles a command.
    @TaskLocal public static var current: MessageContext?

    /// The id of the message being handled, unique per message.
    public let messageId: String
    /// The request it serves: the client's request id, the same in every message the request causes.
    public let correlationId: String

    public init(messageId: String, correlationId: String) {
        self.messageId = messageId
        self.correlationId = correlationId
    }
}
