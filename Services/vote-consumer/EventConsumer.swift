import Contracts
import Foundation
import HTTPClient
import Messaging
import Runtime
import Synchronization

/// Consumes vote events from a durable queue of its own, one at a time in arrival order: prints or forwards each,
/// then acks it, so an event is lost neither by a crash of this process nor of the broker (it comes again, and
/// the id says it is a duplicate). Events of one object can be ordered by `data.sequence`.
final class EventConsumer: Sendable {
    private let options: VoteConsumerOptions
    private let logger: Logger
    private let connection: AMQPConnection
    private let deliveries: AsyncStream<Delivery>
    private let endOfDeliveries: AsyncStream<Delivery>.Continuation

    init(options: VoteConsumerOptions, url: AMQPURL, exchange: String, logger: Logger) {
        self.options = options
        self.logger = logger
        var topology = Topology()
        topology.addPrivateEventQueue(options.queue, exchange: exchange, routingKeys: options.routingKeys)
        // Durable and shared rather than private: events keep arriving in it while the consumer is stopped, and on
        // a cluster they survive the loss of a node (a quorum queue, like the command queues).
        for index in topology.queues.indices where topology.queues[index].name == options.queue {
            topology.queues[index].arguments = Topology.quorumQueue
            topology.queues[index].durable = true
            topology.queues[index].exclusive = false
            topology.queues[index].autoDelete = false
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Delivery.self)
        deliveries = stream
        endOfDeliveries = continuation
        let consumer = AMQPConnection.Consumer(queue: options.queue) { delivery in continuation.yield(delivery) }
        connection = AMQPConnection(url: url, options: .init(name: "vote-consumer", topology: topology,
                                                             consumers: [consumer], prefetch: 64),
                                    logger: logger)
    }

    func run() async throws {
        connection.start()
        logger.info("consuming", ["queue": options.queue, "keys": options.routingKeys.joined(separator: ",")])
        // On SIGTERM/SIGINT: finish the event in hand, ack it, and stop; the rest stay in the queue.
        try await ShutdownSignal.during({
            var handled = 0
            for await delivery in deliveries {
                while true {
                    do {
                        try await handle(delivery)
                        break
                    } catch {
                        logger.warning("could not forward an event; retrying", ["error": "\(error)", "msg.id": delivery.messageId ?? ""])
                        try await Task.sleep(for: .seconds(1))
                    }
                }
                connection.ack(delivery)
                handled += 1
                if let limit = options.limit, handled >= limit { break }
            }
        }, onSignal: { [endOfDeliveries] in endOfDeliveries.finish() })
        await connection.stop()
    }

    private func handle(_ delivery: Delivery) async throws {
        // Passed on as it came, whatever it holds; only logged by what it says.
        if let event = try? JSONDecoder().decode(CloudEvent<VoteCast>.self, from: Data(delivery.body)) {
            logger.debug("vote event", ["event.id": event.id, "event.type": event.type, "subject": event.subject ?? "",
                                        "sequence": String(event.data.sequence)])
        } else {
            logger.warning("not a vote event", ["msg.id": delivery.messageId ?? "", "msg.type": delivery.type ?? ""])
        }
        guard let target = options.forwardURL else {
            var line = delivery.body
            line.append(UInt8(ascii: "\n"))
            FileHandle.standardOutput.write(Data(line))
            return
        }
        let response = try await Self.http.send(.init("POST", target.absoluteString,
                                                      headers: ["Content-Type: application/cloudevents+json"],
                                                      body: delivery.body))
        guard (200..<300).contains(response.status) else {
            throw ConfigurationError("the forward target answered \(response.status)")
        }
    }

    private static let http = HTTPClient(label: "vote-consumer-forward")
}
