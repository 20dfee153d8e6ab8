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
    private let closings = OwnedTasks("app changes")

    init(service: ServiceName, url: AMQPURL, exchange: String, logger: Logger,
         changed: @escaping @Sendable (String, Change) async -> Void) {
        let queue = "\(service.rawValue).apps.\(RandomUUID.string())"
        var topology = Topology()
        topology.addPrivateEventQueue(queue, exchange: exchange, routingKeys: [AppDeleted.routingKey, AppRenamed.routingKey])
        let closings = closings
        let consumer = AMQPConnection.Consumer(queue: queue, autoAck: true) { delivery in
            let body = Data(delivery.body)
            let change: (String, Change)? = switch delivery.routingKey {
            case AppDeleted.routingKey: (try? JSONDecoder().decode(CloudEvent<AppDeleted>.self, from: body)).map { ($0.data.applicationId, .deleted) }
            case AppRenamed.routingKey: (try? JSONDecoder().decode(CloudEvent<AppRenamed>.self, from: body)).map { ($0.data.applicationId, .renamed) }
            default: nil
            }
            guard let (app, kind) = change else {
                return logger.warning("an unreadable change of an app", ["routing.key": delivery.routingKey])
            }
            _ = closings.spawnDetached { await changed(app, kind) }
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
