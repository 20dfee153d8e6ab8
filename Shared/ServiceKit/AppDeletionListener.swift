import Contracts
import Foundation
import Messaging
import Runtime

/// Hears the registry's deletions (`apps.deleted`) on a queue of this process's own (exclusive, deleted with its
/// connection), so every replica closes what it holds of a deleted app, not only the one its drop reached.
/// Auto-acknowledged: a replica that missed one while disconnected finds the app's database gone, and keeps the
/// pools it cannot use until it restarts; the app is no longer served either way (the registry refuses it).
final class AppDeletionListener: Sendable {
    private let connection: AMQPConnection
    private let closings = OwnedTasks("app closings")

    init(service: ServiceName, url: AMQPURL, exchange: String, logger: Logger,
         deleted: @escaping @Sendable (String) async -> Void) {
        let queue = "\(service.rawValue).apps.\(RandomUUID.string())"
        var topology = Topology()
        topology.addPrivateEventQueue(queue, exchange: exchange, routingKeys: [AppDeleted.routingKey])
        let closings = closings
        let consumer = AMQPConnection.Consumer(queue: queue, autoAck: true) { delivery in
            guard let event = try? JSONDecoder().decode(CloudEvent<AppDeleted>.self, from: Data(delivery.body)) else {
                return logger.warning("an unreadable app deletion", ["routing.key": delivery.routingKey])
            }
            _ = closings.spawnDetached { await deleted(event.data.applicationId) }
        }
        connection = AMQPConnection(url: url, options: .init(name: "\(service.rawValue)-apps", topology: topology,
                                                             consumers: [consumer], prefetch: 16),
                                    logger: logger)
    }

    func start() { connection.start() }

    func stop() async {
        await connection.stop()
        await closings.stop()
    }
}
