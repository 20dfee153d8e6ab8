import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime
import Synchronization

/// A `MessageBus` in memory: calls are answered by the handlers served for their queue, in the caller's task;
/// everything published, acked and rejected is kept for the test to read.
public final class InMemoryBus: MessageBus, EventSink {
    public typealias Handler = @Sendable (Delivery) async throws -> [UInt8]
    private typealias ReplyHandler = @Sendable (Delivery) async throws -> (body: [UInt8], headers: [String: String])

    private struct State {
        var handlers: [String: ReplyHandler] = [:]
        var published: [OutgoingMessage] = []
        var calls: [OutgoingMessage] = []
        var acked = 0
        var rejected = 0
        var connected = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Answers calls to `queue` with `handler`'s reply body.
    public func serve(_ queue: String, _ handler: @escaping Handler) {
        state.withLock { $0.handlers[queue] = { (try await handler($0), [:]) } }
    }

    /// Answers the commands of `type` to `service` the way `CommandRouter` does: the payload decoded, the result
    /// (or the `ParseError` thrown) as a `CommandReply`.
    public func serve<Payload: Codable & Sendable, Result: Codable & Sendable>(
        _ service: ServiceName, _ type: String, _ payload: Payload.Type,
        _ handler: @escaping @Sendable (Command<Payload>) async throws -> Result
    ) {
        serve(service.commandQueue) { delivery in
            guard delivery.type == type else { throw InMemoryBusError.unknownType(delivery.type ?? "") }
            let command = try JSONDecoder().decode(Command<Payload>.self, from: Data(delivery.body))
            let reply: CommandReply<Result>
            do {
                reply = .success(try await handler(command))
            } catch let error as ParseError {
                reply = .failure(error)
            }
            return Array(try JSONEncoder().encode(reply))
        }
    }

    /// Answers every call to `service` with `router`, as `CommandServer` would: a service's handlers as its
    /// `build(configuration:bus:database:)` made them. A type the router lacks fails the call.
    public func serve(_ service: ServiceName, _ router: CommandRouter, logger: Logger) {
        state.withLock { state in
            state.handlers[service.commandQueue] = { delivery in
                guard let reply = try await router.reply(to: delivery, logger: logger) else {
                    throw InMemoryBusError.unknownType(delivery.type ?? "")
                }
                return reply
            }
        }
    }

    public var published: [OutgoingMessage] { state.withLock { $0.published } }
    /// The calls made, in order.
    public var calls: [OutgoingMessage] { state.withLock { $0.calls } }
    public var acked: Int { state.withLock { $0.acked } }
    public var rejected: Int { state.withLock { $0.rejected } }

    public func start() { state.withLock { $0.connected = true } }
    public func stop() async { state.withLock { $0.connected = false } }
    public var isConnected: Bool { state.withLock { $0.connected } }

    public func publish(_ message: OutgoingMessage) { state.withLock { $0.published.append(message) } }

    /// An outbox relay's events, kept with the rest of what was published.
    public func publish(encoded events: [EventPublisher.EncodedEvent]) async throws {
        let messages = events.map { event in
            OutgoingMessage(exchange: "parse.events", routingKey: event.routingKey, body: event.body,
                            messageId: event.id, type: event.type, persistent: true)
        }
        state.withLock { $0.published += messages }
    }

    public func call(_ message: OutgoingMessage, timeout: Duration) async throws -> Delivery {
        let handler = state.withLock { state in
            state.calls.append(message)
            return state.handlers[message.routingKey]
        }
        guard let handler else { throw InMemoryBusError.noHandler(message.routingKey) }
        let request = Delivery(body: message.body, routingKey: message.routingKey, correlationId: message.correlationId,
                               messageId: message.messageId, type: message.type, headers: message.headers)
        let reply = try await handler(request)
        return Delivery(body: reply.body, routingKey: "reply", correlationId: message.correlationId, headers: reply.headers)
    }

    public func ack(_ delivery: Delivery) { state.withLock { $0.acked += 1 } }
    public func reject(_ delivery: Delivery, requeue: Bool) { state.withLock { $0.rejected += 1 } }
}

public enum InMemoryBusError: Error {
    case noHandler(String)
    case unknownType(String)
}
