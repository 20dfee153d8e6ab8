import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime
import Synchronization

/// Keeps this gateway's session cache lease with `auth` (`SessionCacheLease`, renewed every second) and answers
/// the evictions `auth` sends before it answers a logout, a revoked session or a role change (`SessionCacheEviction`,
/// on a queue of this gateway's own). The cache is trusted only while the lease runs, counted from before each
/// renewal was sent; `auth` waits for this gateway's confirmation or for its lease to end, so once a change is
/// answered this gateway no longer answers from what the change made stale.
final class SessionCacheLeaseHolder: Sendable {
    static let renewalInterval = Duration.seconds(1)

    let queue: String
    private let client: RPCClient
    private let cache: SessionCache
    private let logger: Logger
    private let connectionBox = Mutex<AMQPConnection?>(nil)
    private let renewals = OwnedTasks("session cache lease")

    init(url: AMQPURL, client: RPCClient, cache: SessionCache, logger: Logger) {
        let queue = "gateway.sessions.\(UUID().uuidString.lowercased())"
        self.queue = queue
        self.client = client
        self.cache = cache
        self.logger = logger
        var topology = Topology()
        topology.addPrivateQueue(queue)
        // Acknowledged on delivery: an eviction lost with this connection goes unconfirmed, and `auth` then waits
        // for the lease to end instead.
        let consumer = AMQPConnection.Consumer(queue: queue, autoAck: true) { [weak self] delivery in
            guard let self, let reply = Self.apply(delivery, to: cache, logger: logger) else { return }
            self.connection.publish(reply)
        }
        let connection = AMQPConnection(url: url, options: .init(name: "gateway-sessions", topology: topology,
                                                                 consumers: [consumer], prefetch: 256),
                                        logger: logger)
        connectionBox.withLock { $0 = connection }
    }

    private var connection: AMQPConnection { connectionBox.withLock { $0! } }

    func start() {
        connection.start()
        renewals.spawn { [self] in
            while !Task.isCancelled {
                // Every second from the last one's start, so a slow answer does not push the next renewal past the
                // end of the lease.
                let started = ContinuousClock.now
                await renew()
                try? await Task.sleep(until: started + Self.renewalInterval)
            }
        }
    }

    /// Gives the lease back, so no change waits for a gateway that is gone.
    func stop() async {
        await renewals.stop()
        _ = try? await client.send(SessionCacheLease.type, SessionCacheLease(queue: queue, release: true), to: .auth,
                                   requestId: "session-cache-lease", identity: .master, timeout: .seconds(1),
                                   expecting: SessionCacheLeaseGranted.self)
        await connection.stop()
    }

    /// Renews the lease, while evictions can reach this gateway. A lease that lapsed, or that `auth` took back,
    /// starts the cache afresh.
    private func renew() async {
        guard connection.isConnected else { return }
        let sent = ContinuousClock.now
        do {
            // An answer later than this could not extend the lease past where the next renewal's would.
            let granted = try await client.send(SessionCacheLease.type, SessionCacheLease(queue: queue), to: .auth,
                                                requestId: "session-cache-lease", identity: .master,
                                                timeout: SessionCacheLease.length - Self.renewalInterval,
                                                expecting: SessionCacheLeaseGranted.self)
            cache.trust(until: sent + SessionCacheLease.length, continued: granted.continued)
        } catch {
            logger.debug("session cache lease not renewed", ["error": "\(error)"])
        }
    }

    /// The reply to an eviction, sent once the cache has dropped what it names.
    static func apply(_ delivery: Delivery, to cache: SessionCache, logger: Logger) -> OutgoingMessage? {
        let answer: CommandReply<Empty>
        if let command = try? JSONValueDecoder().decode(Command<SessionCacheEviction>.self, from: delivery.body) {
            let eviction = command.payload
            if eviction.everyone { cache.rolesChanged() }
            eviction.userIds.forEach { cache.evict(userId: $0) }
            answer = .success(Empty())
        } else {
            logger.warning("unreadable session eviction", ["msg.id": delivery.messageId ?? ""])
            cache.removeAll()
            answer = .failure(ParseError(.invalidJSON, "unreadable session eviction"))
        }
        guard let replyTo = delivery.replyTo, let body = try? JSONValueEncoder().encode(answer) else { return nil }
        return OutgoingMessage(routingKey: replyTo, body: body, correlationId: delivery.correlationId)
    }
}
