import Contracts
import Foundation
import Messaging
import Runtime

/// Listens to `session.revoked` on a queue of this gateway's own (exclusive, deleted with its connection), so a
/// logout on one gateway replica evicts the session from every replica's cache as soon as the event arrives;
/// `role.changed` empties the cache, since any cached identity may hold that role.
final class SessionRevocationListener: Sendable {
    static let revokedKey = "session.revoked"
    static let roleChangedKey = "role.changed"

    /// The event's data as `auth` writes it.
    struct Revoked: Codable, Sendable {
        var sessionId: String
        var userId: String
    }

    private let connection: AMQPConnection

    init(url: AMQPURL, exchange: String, cache: SessionCache, logger: Logger) {
        let queue = "gateway.sessions.\(UUID().uuidString.lowercased())"
        var topology = Topology()
        topology.addPrivateEventQueue(queue, exchange: exchange, routingKeys: [Self.revokedKey, Self.roleChangedKey])
        let log = logger
        // Auto-acknowledged: a lost notification costs at most the cache's time to live, and the resolver stops
        // trusting the cache whenever this connection is down.
        let consumer = AMQPConnection.Consumer(queue: queue, autoAck: true) { delivery in
            if delivery.routingKey == Self.roleChangedKey {
                cache.rolesChanged()
                return
            }
            guard let event = try? JSONDecoder().decode(CloudEvent<Revoked>.self, from: Data(delivery.body)) else {
                log.warning("unreadable session.revoked event", ["msg.id": delivery.messageId ?? ""])
                cache.removeAll()
                return
            }
            cache.evict(userId: event.data.userId)
        }
        connection = AMQPConnection(url: url, options: .init(name: "gateway-sessions", topology: topology,
                                                             consumers: [consumer], prefetch: 256),
                                    logger: logger)
    }

    func start() { connection.start() }
    func stop() async { await connection.stop() }
    var isConnected: Bool { connection.isConnected }
}
