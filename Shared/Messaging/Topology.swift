import Contracts

/// Exchanges, queues and bindings a connection declares each time it connects. Declarations are idempotent,
/// so every process declares what it uses; their arguments must match everywhere (a mismatch closes the channel).
public struct Topology: Sendable {
    public struct Exchange: Sendable { public var name: String; public var type: String }
    public struct Queue: Sendable { public var name: String; public var arguments: [String: String] }
    public struct Binding: Sendable { public var queue: String; public var exchange: String; public var routingKey: String }

    public var exchanges: [Exchange] = []
    public var queues: [Queue] = []
    public var bindings: [Binding] = []

    public init() {}

    /// The durable topic exchange events are published to.
    public mutating func addEventExchange(_ name: String) {
        exchanges.append(Exchange(name: name, type: "topic"))
    }

    /// A service's durable command queue and the queue its failed commands are dead-lettered to.
    public mutating func addCommandQueue(_ name: String) {
        let deadLetters = Self.deadLetterQueue(of: name)
        queues.append(Queue(name: deadLetters, arguments: [:]))
        queues.append(Queue(name: name, arguments: [
            "x-dead-letter-exchange": "",
            "x-dead-letter-routing-key": deadLetters,
        ]))
    }

    public static func deadLetterQueue(of queue: String) -> String { queue + ".dead" }

    public static func commandQueues(_ queues: [String], eventExchange: String) -> Topology {
        var topology = Topology()
        topology.addEventExchange(eventExchange)
        queues.forEach { topology.addCommandQueue($0) }
        return topology
    }
}
