import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime
import Synchronization

/// The HTTP push adapter: consumes `push.requested.v1` events from its durable queue, delivers each device (at most
/// `concurrency` at once), reports the outcomes to posts with `push.report.v1`, and acks the event only then, so a
/// crash never loses a push. Events it handled lately are remembered by id, so one the broker sends twice is not
/// delivered twice; posts counts each event's report once.
public final class PushAdapter: Sendable {
    private let configuration: PushAdapterConfiguration
    private let logger: Logger
    private let connection: AMQPConnection
    private let calls: RPCClient
    private let delivery: HTTPPushDelivery
    private let deliveries: AsyncStream<Delivery>
    private let endOfDeliveries: AsyncStream<Delivery>.Continuation
    private let handled = Mutex(RecentIds(capacity: 10_000))

    public init(configuration: PushAdapterConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        var topology = Topology()
        topology.addPrivateEventQueue(configuration.queue, exchange: configuration.eventExchange,
                                      routingKeys: AppContext.everyApp(configuration.routingKeys))
        // Durable and shared rather than private: pushes wait in it while no adapter runs, and replicas share it.
        for index in topology.queues.indices where topology.queues[index].name == configuration.queue {
            topology.queues[index].durable = true
            topology.queues[index].exclusive = false
            topology.queues[index].autoDelete = false
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Delivery.self)
        deliveries = stream
        endOfDeliveries = continuation
        let consumer = AMQPConnection.Consumer(queue: configuration.queue) { delivery in continuation.yield(delivery) }
        connection = AMQPConnection(url: configuration.amqpURL, options: .init(name: "push-adapter", topology: topology,
                                                                               consumers: [consumer], prefetch: 8),
                                    logger: logger)
        calls = RPCClient(url: configuration.amqpURL, name: "push-adapter-calls", eventExchange: configuration.eventExchange,
                          logger: logger)
        delivery = HTTPPushDelivery(timeout: configuration.requestTimeout)
    }

    /// Runs until SIGTERM/SIGINT: finishes the event in hand, then stops; the rest stay in the queue.
    public func run() async {
        connection.start()
        calls.start()
        logger.info("consuming", ["queue": configuration.queue, "keys": configuration.routingKeys.joined(separator: ","),
                                  "endpoints": configuration.endpoints.byType.keys.sorted().joined(separator: ",")])
        await ShutdownSignal.during({
            for await message in deliveries {
                await handle(message)
                connection.ack(message)
            }
        }, onSignal: { [endOfDeliveries] in endOfDeliveries.finish() })
        await calls.stop()
        await connection.stop()
    }

    /// `--healthcheck`: whether the broker accepts a connection within a few seconds.
    public static func brokerReachable(_ configuration: PushAdapterConfiguration, logger: Logger) async -> Bool {
        let probe = AMQPConnection(url: configuration.amqpURL, options: .init(name: "push-adapter-healthcheck"), logger: logger)
        probe.start()
        var reachable = false
        for _ in 0..<30 where !reachable {
            reachable = probe.isConnected
            if !reachable { try? await Task.sleep(for: .milliseconds(100)) }
        }
        await probe.stop()
        return reachable
    }

    private func handle(_ message: Delivery) async {
        let event: CloudEvent<PushRequested>
        do {
            event = try JSONDecoder().decode(CloudEvent<PushRequested>.self, from: Data(message.body))
        } catch {
            logger.error("not a push.requested.v1 event; dropped", ["error": "\(error)", "msg.id": message.messageId ?? ""])
            return
        }
        if handled.withLock({ $0.contains(event.id) }) {
            logger.debug("event delivered before; skipped", ["event.id": event.id])
            return
        }
        let app = AppContext.app(ofRoutingKey: message.routingKey)
        let outcomes: [ReportPushResults.Outcome]
        switch await endpoints(of: app) {
        case .success(let endpoints): outcomes = await deliverAll(event.data, to: endpoints)
        case .failure(let reason):
            outcomes = event.data.devices.map {
                ReportPushResults.Outcome(objectId: $0.objectId, deviceType: $0.deviceType, transmitted: false, error: reason.message)
            }
        }
        let report = ReportPushResults(pushStatusId: event.data.pushStatusId, eventId: event.id, outcomes: outcomes)
        while !Task.isCancelled {
            do {
                let _: PushResultsRecorded = try await AppContext.$current.withValue(app) {
                    try await calls.send(ReportPushResults.type, report, to: .posts, requestId: event.id,
                                         identity: .master, timeout: .seconds(10))
                }
                break
            } catch let error as ParseError {
                logger.error("posts refused the report", ["error": error.description, "event.id": event.id])
                break
            } catch {
                logger.warning("could not report to posts; retrying", ["error": "\(error)", "event.id": event.id])
                try? await Task.sleep(for: .seconds(1))
            }
        }
        handled.withLock { $0.insert(event.id) }
        logger.info("push delivered", ["event.id": event.id, "push.status": event.data.pushStatusId,
                                       "sent": String(outcomes.filter(\.transmitted).count), "failed": String(outcomes.filter { !$0.transmitted }.count)])
    }

    /// The endpoints of `app`: the stack's own app's from the environment, another app's as the registry has them
    /// now; a registry that does not answer is asked again (the event stays unacknowledged meanwhile).
    private func endpoints(of app: String?) async -> Result<PushEndpoints, ParseError> {
        guard let app else { return .success(configuration.endpoints) }
        while true {
            do {
                let record = try await calls.resolveApp(app, timeout: configuration.requestTimeout)
                let endpoints = try PushEndpoints(record.pushEndpoints ?? "")
                guard !endpoints.byType.isEmpty else {
                    return .failure(ParseError(.pushMisconfigured, "no push endpoints are configured for this app"))
                }
                return .success(endpoints)
            } catch let error as ParseError {
                return .failure(error)
            } catch {
                guard !Task.isCancelled else { return .failure(ParseError(.connectionFailed, "The push adapter is stopping.")) }
                logger.warning("the app registry did not answer; retrying", ["app": app, "error": "\(error)"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func deliverAll(_ push: PushRequested, to endpoints: PushEndpoints) async -> [ReportPushResults.Outcome] {
        if let expiration = push.expirationTime.flatMap(ParseDate.date(from:)), expiration < Date() {
            return push.devices.map {
                ReportPushResults.Outcome(objectId: $0.objectId, deviceType: $0.deviceType, transmitted: false, error: "expired")
            }
        }
        let delivery = self.delivery, limit = configuration.concurrency
        return await withTaskGroup(of: (Int, ReportPushResults.Outcome).self) { group in
            var outcomes = [ReportPushResults.Outcome?](repeating: nil, count: push.devices.count)
            var next = 0
            func addNext() {
                guard next < push.devices.count else { return }
                let index = next, device = push.devices[index]
                next += 1
                group.addTask { (index, await delivery.deliver(device, of: push, to: endpoints)) }
            }
            for _ in 0..<limit { addNext() }
            while let (index, outcome) = await group.next() {
                outcomes[index] = outcome
                addNext()
            }
            return outcomes.compactMap { $0 }
        }
    }
}

/// The last `capacity` ids seen, oldest forgotten first.
struct RecentIds: Sendable {
    let capacity: Int
    private var order: [String] = []
    private var members: Set<String> = []
    private var start = 0

    init(capacity: Int) { self.capacity = capacity }

    func contains(_ id: String) -> Bool { members.contains(id) }

    mutating func insert(_ id: String) {
        guard members.insert(id).inserted else { return }
        if order.count < capacity {
            order.append(id)
        } else {
            members.remove(order[start])
            order[start] = id
            start = (start + 1) % capacity
        }
    }
}
