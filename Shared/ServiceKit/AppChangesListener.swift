import Contracts
import Foundation
import Messaging
import Runtime

/// Hears the registry's deletions and renames (`apps.deleted`, `apps.renamed`) on a queue of this process's own
/// (exclusive, deleted with its connection), so every replica closes what it holds of a deleted app, not only the
/// one its drop reached, and makes a renamed app's handlers again. Auto-acknowledged: a replica that missed a
/// deletion while disconnected finds the app's database gone, and keeps the pools it cannot use until it restarts.
final class AppChangesListener: Sendable {
    enum Change: Sendable {
        case deleted
        case renamed
    }

    private let connection: AMQPConnection
    private let handling = OwnedTasks("app changes")

    init(service: ServiceName, url: AMQPURL, exchange: String, logger: Logger,
         changed: @escaping @Sendable (String, Change) async -> Void) {
        let queue = "\(service.rawValue).apps.\(RandomUUID.string())"
        var topology = Topology()
        topology.addPrivateEventQueue(queue, exchange: exchange, routingKeys: [AppDeleted.routingKey, AppRenamed.routingKey])
        let handling = handling
        let consumer = AMQPConnection.Consumer(queue: queue, autoAck: true) { delivery in
            let change: (String, Change)? = switch delivery.routingKey {
            case AppDeleted.routingKey: Self.data(AppDeleted.self, delivery).map { ($0.applicationId, .deleted) }
            case AppRenamed.routingKey: Self.data(AppRenamed.self, delivery).map { ($0.applicationId, .renamed) }
            default: nil
            }
            guard let (app, kind) = change else {
                return logger.warning("an unreadable change of an app", ["routing.key": delivery.routingKey])
            }
            _ = handling.spawnDetached { await changed(app, kind) }
        }
        connection = AMQPConnection(url: url, options: .init(name: "\(service.rawValue)-apps", topology: topology,
                                                             consumers: [consumer], prefetch: 16),
                                    logger: logger)
    }

    private static func data<Payload: Codable & Sendable>(_ type: Payload.Type, _ delivery: Delivery) -> Payload? {
        (try? JSONDecoder().decode(CloudEvent<Payload>.self, from: Data(delivery.body)))?.data
    }

    func start() { connection.start() }

    func stop() async {
        await connection.stop()
        await handling.stop()
    }
}
