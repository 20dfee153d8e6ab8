import Contracts

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

    /// A service's durable command queue and the queue its failed commands are dead-lettered to. Both are quorum
    /// queues: replicated to a majority of a cluster's nodes, so losing one node loses no queued command.
    public mutating func addCommandQueue(_ name: String) {
        let deadLetters = Self.deadLetterQueue(of: name)
        queues.append(Queue(name: deadLetters, arguments: Self.quorumQueue))
        queues.append(Queue(name: name, arguments: Self.quorumQueue.merging([
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
        queues.append(Queue(name: name, arguments: [:], durable: false, exclusive: true, autoDelete: true))
        bindings += routingKeys.map { Binding(queue: name, exchange: exchange, routingKey: $0) }
    }

    public static func deadLetterQueue(of queue: String) -> String { queue + ".dead" }

    public static func commandQueues(_ queues: [String], eventExchange: String) -> Topology {
        var topology = Topology()
        topology.addEventExchange(eventExchange)
        queues.forEach { topology.addCommandQueue($0) }
        return topology
    }
}
