import Contracts
import Foundation
import Metrics
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

    /// An event already encoded, as an outbox stores it.
    public struct EncodedEvent: Sendable {
        public var id: String
        public var type: String
        public var routingKey: String
        public var body: [UInt8]

        public init(id: String, type: String, routingKey: String, body: [UInt8]) {
            self.id = id
            self.type = type
            self.routingKey = routingKey
            self.body = body
        }
    }

    /// `routingKey` is `<domain>.<event>.<ClassName>`, e.g. `vote.cast.Cat`.
    public func publish<Payload>(_ events: [(routingKey: String, event: CloudEvent<Payload>)]) async throws {
        try await publish(encoded: events.map { item in
            EncodedEvent(id: item.event.id, type: item.event.type, routingKey: item.routingKey,
                         body: try JSONCoding.encode(item.event))
        })
    }

    public func publish(encoded events: [EncodedEvent]) async throws {
        try await connection.publishConfirmed(messages(events))
        Self.count(events)
    }

    /// The same handed to the connection's thread at once, without waiting: `settled` is called there once the broker
    /// has confirmed them (or has not).
    public func publishNow(encoded events: [EncodedEvent], settled: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        connection.publishConfirmed(messages(events)) { result in
            if case .success = result { Self.count(events) }
            settled(result)
        }
    }

    private func messages(_ events: [EncodedEvent]) -> [OutgoingMessage] {
        events.map { event in
            OutgoingMessage(exchange: exchange, routingKey: event.routingKey, body: event.body,
                            contentType: CloudEvent<Empty>.contentType, messageId: event.id, type: event.type,
                            persistent: true)
        }
    }

    private static func count(_ events: [EncodedEvent]) {
        guard MetricsSwitch.isOn else { return }
        for event in events { MessagingMetrics.eventsPublished.labels(event.type).increment() }
    }
}
