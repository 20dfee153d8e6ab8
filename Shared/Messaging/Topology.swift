import Contracts
import Foundation

/// Exchanges, queues and bindings a connection declares each time it connects. Declarations are idempotent,
/// so every process declares what it uses; their arguments must match everywhere (a mismatch closes the channel).
public struct Topology: Sendable {
    public struct Exchange: Sendable { public var name: String; public var type: String }
    public struct Queue: Sendable {
        public var name: String
        public var arguments: [String: String]
        public var durable = true
        /// Only the declaring connection may use it, and the broker deletes it when that connection closes.
        public var exclusive = false
        public var autoDelete = false
    }
    public struct Binding: Sendable { public var queue: String; public var exchange: String; public var routingKey: String }

    public var exchanges: [Exchange] = []
    public var queues: [Queue] = []
    public var bindings: [Binding] = []

    public init() {}

    /// The durable topic exchange events are published to.
    public mutating func addEventExchange(_ name: String) {
        exchanges.append(Exchange(name: name, type: "topic"))
    }

    /// How command and dead-letter queues are declared. Quorum queues replicate to a majority of a cluster's nodes,
    /// so losing one node loses no queued command; on a single node they only add work (the broker writes every
    /// message to the queue's log, which doubled its CPU per request), so a single node is better served by classic
    /// durable queues. Every process and the broker's definitions must agree: `PARSE_AMQP_QUEUE_TYPE`, read once
    /// (`deploy/stack` sets `classic` for one node, `quorum` for a cluster; quorum when unset).
    public enum CommandQueueType: String, Sendable {
        case classic, quorum

        public static let configured: CommandQueueType =
            ProcessInfo.processInfo.environment["PARSE_AMQP_QUEUE_TYPE"].flatMap(CommandQueueType.init(rawValue:)) ?? .quorum

        var arguments: [String: String] { self == .quorum ? Topology.quorumQueue : [:] }
    }

    /// A service's durable command queue and the queue its failed commands are dead-lettered to, both of `type`.
    public mutating func addCommandQueue(_ name: String, type: CommandQueueType = .configured) {
        let deadLetters = Self.deadLetterQueue(of: name)
        queues.append(Queue(name: deadLetters, arguments: type.arguments))
        queues.append(Queue(name: name, arguments: type.arguments.merging([
            "x-dead-letter-exchange": "",
            "x-dead-letter-routing-key": deadLetters,
        ]) { $1 }))
    }

    /// The arguments of every shared durable queue. Queues of one process (reply queues, a gateway's private event
    /// queue) stay classic: they live and die with their connection, so there is nothing to replicate.
    public static let quorumQueue = ["x-queue-type": "quorum"]

    /// A queue of one process's own for the events it listens to (a gateway's `session.revoked`, for instance):
    /// not durable, exclusive and auto-deleted, so it disappears with the connection that declared it.
    public mutating func addPrivateEventQueue(_ name: String, exchange: String, routingKeys: [String]) {
        addEventExchange(exchange)
        addPrivateQueue(name)
        bindings += routingKeys.map { Binding(queue: name, exchange: exchange, routingKey: $0) }
    }

    /// A queue of one process's own, reached by its name only (a gateway's session evictions): not durable,
    /// exclusive and auto-deleted, like a private event queue.
    public mutating func addPrivateQueue(_ name: String) {
        queues.append(Queue(name: name, arguments: [:], durable: false, exclusive: true, autoDelete: true))
    }

    public static func deadLetterQueue(of queue: String) -> String { queue + ".dead" }

    public static func commandQueues(_ queues: [String], eventExchange: String,
                                     type: CommandQueueType = .configured) -> Topology {
        var topology = Topology()
        topology.addEventExchange(eventExchange)
        queues.forEach { topology.addCommandQueue($0, type: type) }
        return topology
    }
}
