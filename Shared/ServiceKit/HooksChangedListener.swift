import Contracts
import Foundation
import Messaging
import Runtime

/// Drops the trigger registry's list when Cloud Code announces a change (`hooks.changed`), on a queue of this
/// process's own (exclusive, deleted with its connection), as the gateway listens for revoked sessions.
public final class HooksChangedListener: Sendable {
    private let connection: AMQPConnection

    public init(service: ServiceName, url: AMQPURL, exchange: String, registry: TriggerRegistry, logger: Logger) {
        let queue = "\(service.rawValue).hooks.\(RandomUUID.string())"
        var topology = Topology()
        // The announcements of the app the registry is made for (`AppContext` now).
        topology.addPrivateEventQueue(queue, exchange: exchange,
                                      routingKeys: [AppContext.routingKey(ListTriggers.changedRoutingKey, app: AppContext.current)])
        // Auto-acknowledged: the registry reloads whenever this connection comes back, so a notification lost with
        // it costs nothing.
        let consumer = AMQPConnection.Consumer(queue: queue, autoAck: true) { _ in
            registry.reloadInBackground()
        }
        connection = AMQPConnection(url: url, options: .init(name: "\(service.rawValue)-hooks", topology: topology,
                                                             consumers: [consumer], prefetch: 16),
                                    logger: logger)
    }

    public func start() { connection.start() }
    public func stop() async { await connection.stop() }
    public var isConnected: Bool { connection.isConnected }
}
