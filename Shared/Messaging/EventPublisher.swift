import Contracts
import Foundation
import Runtime

/// Publishes events to the durable topic exchange with publisher confirms, a batch at a time: `publish` returns
/// only when the broker has taken every event of the batch, so an outbox row may be marked sent after it.
public final class EventPublisher: Sendable {
    private let connection: AMQPConnection
    private let exchange: String

    public init(url: AMQPURL, name: String, exchange: String, logger: Logger) {
        var topology = Topology()
        topology.addEventExchange(exchange)
        self.exchange = exchange
        connection = AMQPConnection(url: url, options: .init(name: name, topology: topology, confirmsPublishes: true),
                                    logger: logger)
    }

    public func start() { connection.start() }
    public func stop() async { await connection.stop() }
    public var isConnected: Bool { connection.isConnected }

    /// `routingKey` is `<domain>.<event>.<ClassName>`, e.g. `vote.cast.Cat`.
    public func publish<Payload>(_ events: [(routingKey: String, event: CloudEvent<Payload>)]) async throws {
        let messages = try events.map { item in
            OutgoingMessage(exchange: exchange, routingKey: item.routingKey, body: try JSONCoding.encode(item.event),
                            contentType: CloudEvent<Payload>.contentType, messageId: item.event.id,
                            type: item.event.type, persistent: true)
        }
        try await connection.publishConfirmed(messages)
    }
}
