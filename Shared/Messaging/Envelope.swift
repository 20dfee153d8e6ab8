import Foundation
import Runtime

/// What every command carries beside its body, so one request can be followed through every service:
/// - AMQP `message_id`: the message's own id, unique (a redelivery keeps it);
/// - `x-correlation-id`: the request it serves, the client's request id, the same in every message it causes;
/// - `x-causation-id`: the id of the message whose handling sent this one (none from the gateway);
/// - `x-sent-at`: when it was sent, milliseconds since 1970, for how long it waited in its queue;
/// - `traceparent`: the next hop of the W3C trace (`TraceContext`);
/// - `x-parse-app`: the app the command works for, when it is not the stack's own (`AppContext`).
/// Replies are matched by AMQP `correlation_id` and carry none of it. Events carry the same ids as CloudEvents
/// attributes (ServiceKit's `Outbox.add`).
public enum Envelope {
    public static let correlationHeader = "x-correlation-id"
    public static let causationHeader = "x-causation-id"
    public static let sentAtHeader = "x-sent-at"

    /// `message` as a command of the request `requestId`, sent now from the task's context.
    static func stamped(_ message: OutgoingMessage, requestId: String) -> OutgoingMessage {
        var stamped = message
        stamped.messageId = RandomUUID.string()
        stamped.headers[correlationHeader] = requestId
        if let cause = MessageContext.current?.messageId { stamped.headers[causationHeader] = cause }
        stamped.headers[sentAtHeader] = String(Int64(Date().timeIntervalSince1970 * 1000))
        if let trace = TraceContext.current { stamped.headers[TraceContext.header] = trace.child().traceparent }
        if let app = AppContext.current { stamped.headers[AppContext.header] = app }
        return stamped
    }

    /// The request a delivered command serves: its correlation header, else (a command sent before the envelope
    /// existed) its message id, which then held the request id.
    public static func requestId(of delivery: Delivery) -> String? {
        delivery.headers[correlationHeader] ?? delivery.messageId
    }

    /// The context a service handles `delivery` in.
    static func context(of delivery: Delivery) -> MessageContext? {
        guard let messageId = delivery.messageId else { return nil }
        return MessageContext(messageId: messageId, correlationId: requestId(of: delivery) ?? messageId)
    }

    /// Milliseconds between the sending of `delivery` and `now`; nil without a sent-at header.
    static func waitedMilliseconds(_ delivery: Delivery, now: Date = Date()) -> Int64? {
        delivery.headers[sentAtHeader].flatMap(Int64.init).map { max(0, Int64(now.timeIntervalSince1970 * 1000) - $0) }
    }
}
