import Dispatch
import Foundation
import Runtime
import Synchronization

/// A connection to RabbitMQ owned by its own thread (`ConnectionLoop`), which is the only one that touches the
/// librabbitmq connection. Other threads and tasks hand it work through `ConnectionMailbox`; results come back
/// through continuations. When the broker goes away the thread fails every call in flight at once
/// (`MessagingError.connectionLost`), refuses new ones (`.unavailable`) and reconnects by itself with backoff,
/// declaring its topology and consumers again. Given several broker nodes (`AMQPURL.nodes`), it reconnects to the
/// next one, so the loss of one node of a cluster costs a connection nothing but the reconnect. What it decides is
/// `AMQPConnectionState`; message batches are the opt-in `MessageCoalescer`.
public final class AMQPConnection: Sendable {
    static let directReplyQueue = "amq.rabbitmq.reply-to"

    let nodes: [AMQPURL]
    let options: Options
    let logger: Logger
    let mailbox: ConnectionMailbox
    /// Runs tasks on the connection's thread (see `ConnectionExecutor`).
    public let executor: ConnectionExecutor
    let batchesReceived = Atomic<Int>(0)
    let metrics: ConnectionMetrics

    public init(url: AMQPURL, options: Options, logger: Logger) {
        nodes = url.nodes
        let mailbox = ConnectionMailbox()
        self.mailbox = mailbox
        executor = ConnectionExecutor(mailbox: mailbox)
        self.options = options
        self.logger = logger.with("amqp.connection", options.name)
        metrics = ConnectionMetrics(connectionName: options.name)
    }

    /// Starts the connection thread; it connects in the background and keeps reconnecting until `stop`.
    public func start() {
        DedicatedThread.start("amqp-\(options.name)") { [self] in ConnectionLoop(connection: self).run() }
    }

    public var isConnected: Bool { mailbox.isConnected }

    /// How many `MessageBatch`es arrived (each unpacked into its parts).
    var receivedBatches: Int { batchesReceived.load(ordering: .relaxed) }

    /// Flushes what is queued (replies, acks), closes the connection and ends the thread.
    public func stop() async {
        await withCheckedContinuation { continuation in
            if !mailbox.requestStop(continuation) { continuation.resume() }
        }
    }

    /// Fire-and-forget publish (replies, for instance). Dropped if the broker is unreachable.
    public func publish(_ message: OutgoingMessage) {
        mailbox.enqueue(.publish(message))
    }

    /// Publishes on the confirm channel and returns once the broker has taken responsibility for every message.
    public func publishConfirmed(_ messages: [OutgoingMessage]) async throws {
        guard !messages.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            precondition(options.confirmsPublishes, "publishConfirmed needs Options.confirmsPublishes")
            mailbox.enqueueWhileConnected(.publishConfirmed(messages, ConfirmWaiter { continuation.resume(with: $0) })) {
                continuation.resume(throwing: MessagingError.unavailable)
            }
        }
    }

    /// The same without waiting: the messages are handed to the connection's thread at once, and `settled` is called
    /// there when the broker has confirmed them all (or at once, with the error, when they cannot be sent).
    public func publishConfirmed(_ messages: [OutgoingMessage], settled: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        guard !messages.isEmpty else { return settled(.success(())) }
        precondition(options.confirmsPublishes, "publishConfirmed needs Options.confirmsPublishes")
        mailbox.enqueueWhileConnected(.publishConfirmed(messages, ConfirmWaiter(settled))) {
            settled(.failure(MessagingError.unavailable))
        }
    }

    /// Request/reply over direct reply-to: publishes `message` with a fresh correlation id and waits for the
    /// reply. Fails with `.timeout` after `timeout` (the request also expires in its queue then), with
    /// `.unavailable` at once while disconnected, and with `.connectionLost` if the connection drops meanwhile.
    public func call(_ message: OutgoingMessage, timeout: Duration) async throws -> Delivery {
        precondition(options.receivesReplies, "call needs Options.receivesReplies")
        // A call made while handling a command waits no longer than that command's own caller.
        let bounded = Deadline.current.map { min(timeout, $0.remaining) } ?? timeout
        let milliseconds = max(1, Int(bounded.totalMilliseconds.rounded(.up)))
        var request = message
        request.correlationId = RandomUUID.string()
        request.replyTo = Self.directReplyQueue
        request.expirationMilliseconds = milliseconds
        request.headers.merge(CommandDeadline.headers(timeoutMilliseconds: milliseconds)) { _, deadline in deadline }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
        return try await withCheckedThrowingContinuation { continuation in
            let call = ConnectionOperation.PendingCall(waiter: continuation, deadline: deadline,
                                                       queue: message.routingKey, milliseconds: milliseconds)
            mailbox.enqueueWhileConnected(.call(request, call)) {
                continuation.resume(throwing: MessagingError.unavailable)
            }
        }
    }

    public func ack(_ delivery: Delivery) {
        if let batch = delivery.batch, !batch.settlePart() { return }
        mailbox.enqueue(.ack(tag: delivery.tag, generation: delivery.generation))
    }

    /// Acks `delivery` and publishes `reply` right after it, queued together: the connection thread is woken once
    /// for both and sends them in one turn, the ack first (see `MessageCoalescer.coalesced`).
    public func ack(_ delivery: Delivery, thenPublish reply: OutgoingMessage) {
        if let batch = delivery.batch, !batch.settlePart() { return publish(reply) }
        mailbox.enqueue(.ack(tag: delivery.tag, generation: delivery.generation), then: .publish(reply))
    }

    /// Without requeue the broker dead-letters the message (to the queue's dead-letter queue).
    public func reject(_ delivery: Delivery, requeue: Bool) {
        guard let batch = delivery.batch else {
            mailbox.enqueue(.reject(tag: delivery.tag, generation: delivery.generation, requeue: requeue))
            return
        }
        // The broker cannot reject one part of a batch: the part goes back to its queue, or on to the dead-letter
        // queue, as a message of its own, and counts as settled.
        mailbox.enqueue(.publish(OutgoingMessage(
            routingKey: requeue ? batch.queue : Topology.deadLetterQueue(of: batch.queue), body: delivery.body,
            correlationId: delivery.correlationId, replyTo: delivery.replyTo, messageId: delivery.messageId,
            type: delivery.type, persistent: true, headers: delivery.headers)))
        if batch.settlePart() { mailbox.enqueue(.ack(tag: delivery.tag, generation: delivery.generation)) }
    }

    /// Stops taking new deliveries (first step of a graceful stop); stays so across reconnects.
    public func cancelConsumers() async {
        await withCheckedContinuation { continuation in
            mailbox.stopConsuming(.cancelConsumers(continuation)) { continuation.resume() }
        }
    }
}
