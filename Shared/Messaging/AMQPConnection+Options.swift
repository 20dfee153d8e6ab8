extension AMQPConnection {
    public struct Consumer: Sendable {
        public var queue: String
        /// Called on the connection thread: hand the delivery to a task and return at once.
        public var handler: @Sendable (Delivery) -> Void
        /// The broker counts a delivery as handled once sent: for notifications whose loss a consumer tolerates.
        public var autoAck: Bool

        public init(queue: String, autoAck: Bool = false, handler: @escaping @Sendable (Delivery) -> Void) {
            self.queue = queue
            self.autoAck = autoAck
            self.handler = handler
        }
    }

    public struct Options: Sendable {
        /// Names the connection in logs and consumer tags.
        public var name: String
        public var topology: Topology
        public var consumers: [Consumer]
        /// Unacknowledged deliveries the broker may push at once (bounded, so a slow service is not flooded).
        public var prefetch: Int
        /// Consume RabbitMQ's direct reply-to pseudo-queue, needed for `call`.
        public var receivesReplies: Bool
        /// Open a second channel in confirm mode, needed for `publishConfirmed`.
        public var confirmsPublishes: Bool
        /// Send coalescible messages queued together for one queue as one `MessageBatch` (`MessageCoalescer`):
        /// for the connections that carry many small requests or replies (`RPCClient`, `CommandServer`).
        public var batchesMessages: Bool
        /// Called on the connection's thread each time it connects again after a loss, once its consumers are set
        /// up: what a private queue received meanwhile is gone with it, so a consumer that keeps state from its
        /// messages learns that some may have been missed. Must return at once.
        public var reconnected: (@Sendable () -> Void)?

        public init(name: String, topology: Topology = Topology(), consumers: [Consumer] = [], prefetch: Int = 32,
                    receivesReplies: Bool = false, confirmsPublishes: Bool = false, batchesMessages: Bool = false,
                    reconnected: (@Sendable () -> Void)? = nil) {
            self.name = name
            self.topology = topology
            self.consumers = consumers
            self.prefetch = prefetch
            self.receivesReplies = receivesReplies
            self.confirmsPublishes = confirmsPublishes
            self.batchesMessages = batchesMessages
            self.reconnected = reconnected
        }

        var stateSetup: ConnectionLoop.State.Setup {
            .init(autoAcks: consumers.map(\.autoAck), receivesReplies: receivesReplies,
                  confirmsPublishes: confirmsPublishes)
        }
    }
}
