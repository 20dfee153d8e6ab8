import Contracts
import ParseWire
import Runtime

/// Sends commands to services and waits for their replies (the gateway's side of request/reply).
/// One connection carries every call in flight; replies are matched by correlation id.
public final class RPCClient: Sendable {
    let connection: any MessageBus

    /// Declares every service's command queue too, so commands wait in their queue while a service restarts.
    public init(url: AMQPURL, name: String, eventExchange: String, logger: Logger) {
        let topology = Topology.commandQueues(ServiceName.allCases.map(\.commandQueue), eventExchange: eventExchange)
        let options = AMQPConnection.Options(name: name, topology: topology, receivesReplies: true,
                                             batchesMessages: true)
        connection = AMQPConnection(url: url, options: options, logger: logger)
    }

    /// Calls over `bus` (an in-memory one in unit tests).
    public init(bus: any MessageBus) { connection = bus }

    public func start() { connection.start() }
    public func stop() async { await connection.stop() }
    public var isConnected: Bool { connection.isConnected }
    /// The thread of its broker connection, for tasks that mostly send its commands and wait for their replies;
    /// nil for an in-memory bus.
    public var connectionExecutor: (any TaskExecutor)? { (connection as? AMQPConnection)?.executor }

    /// Sends `payload` as command `type` and decodes the reply. A service's refusal arrives as its `ParseError`;
    /// transport failures throw `MessagingError` (see its `parseError` for what a client should see).
    /// `safeToRunTwice: false` keeps the command out of message batches (see `OutgoingMessage.coalescible`).
    public func send<Payload: Codable & Sendable, Result: Codable & Sendable>(
        _ type: String, _ payload: Payload, to service: ServiceName, requestId: String, identity: Identity,
        timeout: Duration, safeToRunTwice: Bool = true, expecting: Result.Type = Result.self
    ) async throws -> Result {
        try await send(type, payload, queue: service.commandQueue, requestId: requestId, identity: identity,
                       timeout: timeout, safeToRunTwice: safeToRunTwice)
    }

    /// The same, to any command queue (tests use queues of their own; cloud calls its workers' queues).
    public func send<Payload: Codable & Sendable, Result: Codable & Sendable>(
        _ type: String, _ payload: Payload, queue: String, requestId: String, identity: Identity, timeout: Duration,
        safeToRunTwice: Bool = true, expecting: Result.Type = Result.self
    ) async throws -> Result {
        CommandTrace.current?.record(type)
        let command = Command(type: type, requestId: requestId, identity: identity, payload: payload)
        let message = OutgoingMessage(routingKey: queue, body: try JSONCoding.encode(command), type: type,
                                      coalescible: safeToRunTwice)
        let reply = try await connection.call(Envelope.stamped(message, requestId: requestId), timeout: timeout)
        let decoded: CommandReply<Result>
        do {
            decoded = try JSONCoding.decode(CommandReply<Result>.self, from: reply.body)
        } catch {
            throw MessagingError.malformedReply("\(type) from \(queue): \(error)")
        }
        return try decoded.get()
    }

}
