import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime
import Synchronization

/// Delivers a service's after* triggers to Cloud Code, at least once. The outbox relay publishes each (a
/// `cloud.trigger.run.v1` command written in the write's transaction) to the events exchange under
/// `cloud.trigger.<service>.<trigger>.<class>`; this service's durable queue `<service>.triggers` takes them, and each
/// is sent to `cloud` over request/reply and acknowledged only once `cloud` has answered it. A call `cloud` could not
/// make (the webhook down, a worker killed or slow, `cloud` itself stopped), or that the trigger failed, is tried
/// again later, 1 s doubling to a minute between tries, `maxAttempts` times in all; then it waits in
/// `<service>.triggers.dead`, where the `dead-letters` tool can requeue it.
public final class AfterTriggerDispatcher: Sendable {
    static let attemptsHeader = "x-attempts"

    public static func queue(of service: ServiceName) -> String { "\(service.rawValue).triggers" }
    public static func binding(of service: ServiceName) -> String { "cloud.trigger.\(service.rawValue).#" }

    private let connection: AMQPConnection
    /// The deliveries being sent to Cloud Code.
    private let deliveries = OwnedTasks("after triggers")

    public init(service: ServiceName, url: AMQPURL, exchange: String, runner: any CloudTriggerRunner,
                maxAttempts: Int, callTimeout: Duration = .seconds(30), logger: Logger) {
        let queue = Self.queue(of: service)
        var topology = Topology()
        topology.addEventExchange(exchange)
        topology.addCommandQueue(queue)
        for key in AppContext.everyApp([Self.binding(of: service)]) { topology.bind(queue, to: exchange, routingKey: key) }
        let box = ConnectionBox()
        let deliveries = self.deliveries
        let consumer = AMQPConnection.Consumer(queue: queue) { delivery in
            // Refused once stopping: left unacked, for the next start.
            deliveries.spawn {
                guard let connection = box.connection else { return }
                await Self.deliver(delivery, queue: queue, runner: runner, maxAttempts: maxAttempts,
                                   callTimeout: callTimeout, connection: connection, logger: logger)
            }
        }
        connection = AMQPConnection(url: url, options: .init(name: "\(service.rawValue)-triggers", topology: topology,
                                                             consumers: [consumer], prefetch: 16),
                                    logger: logger)
        box.connection = connection
    }

    public func start() { connection.start() }
    public func stop() async {
        await connection.cancelConsumers()
        // Those still waiting for Cloud Code (or for their next try) stay unacked and come back to the next start.
        await deliveries.stop()
        await connection.stop()
    }

    /// The pause before try `attempt + 1`.
    static func backoff(after attempt: Int) -> Duration {
        .milliseconds(min(1_000 * (1 << min(attempt - 1, 6)), 60_000))
    }

    private static func deliver(_ delivery: Delivery, queue: String, runner: any CloudTriggerRunner, maxAttempts: Int,
                                callTimeout: Duration, connection: AMQPConnection, logger: Logger) async {
        guard let command = try? JSONDecoder().decode(Command<RunTrigger>.self, from: Data(delivery.body)) else {
            logger.error("unreadable after-trigger command; dead-lettered", ["msg.id": delivery.messageId ?? ""])
            connection.reject(delivery, requeue: false)
            return
        }
        let log = logger.with("request.id", command.requestId)
        let label = "\(command.payload.key.triggerName.rawValue) of \(command.payload.key.className)"
        // The app of the write: from its routing key, or, for a try sent back to the queue, from the header.
        let app = delivery.headers[AppContext.header] ?? AppContext.app(ofRoutingKey: delivery.routingKey)
        do {
            _ = try await AppContext.$current.withValue(app) {
                try await runner.run(command.payload, requestId: command.requestId, identity: command.identity,
                                     timeout: callTimeout)
            }
            connection.ack(delivery)
        } catch {
            let attempts = DeliveryAttempts.current(delivery.headers, key: attemptsHeader, limit: maxAttempts)
            guard attempts < maxAttempts else {
                log.error("after trigger failed too often; dead-lettered",
                          ["trigger": label, "attempts": String(attempts), "error": "\(error)"])
                connection.reject(delivery, requeue: false)
                return
            }
            log.warning("after trigger failed; trying again later",
                        ["trigger": label, "attempt": String(attempts), "error": "\(error)"])
            try? await Task.sleep(for: backoff(after: attempts))
            var headers = delivery.headers
            headers[attemptsHeader] = String(attempts)
            headers[AppContext.header] = app
            connection.publish(OutgoingMessage(routingKey: queue, body: delivery.body, messageId: delivery.messageId,
                                               type: delivery.type, persistent: true, headers: headers))
            connection.ack(delivery)
        }
    }
}

/// The dispatcher's connection, set right after it is made: the consumer that needs it is made first.
private final class ConnectionBox: Sendable {
    private let value = Mutex<AMQPConnection?>(nil)

    var connection: AMQPConnection? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
