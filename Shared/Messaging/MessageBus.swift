/// What a service needs of the message bus: its lifecycle, publishing, request/reply calls and settling what it
/// consumed. Consumers are given when the bus is made (`AMQPConnection.Options.consumers`), so that they are
/// declared again on every reconnect. `AMQPConnection` is the real one; tests use `InMemoryBus` (`TestDoubles`),
/// and `RPCClient(bus:)` runs over either.
public protocol MessageBus: Sendable {
    func start()
    func stop() async
    var isConnected: Bool { get }
    func publish(_ message: OutgoingMessage)
    /// Publishes `message` with a reply address and waits for the reply, at most `timeout`.
    func call(_ message: OutgoingMessage, timeout: Duration) async throws -> Delivery
    func ack(_ delivery: Delivery)
    func reject(_ delivery: Delivery, requeue: Bool)
}

extension AMQPConnection: MessageBus {}
