import Dispatch
import Foundation
import Glibc
import Runtime
import Synchronization

/// A connection to RabbitMQ owned by its own thread, which is the only one that touches the librabbitmq
/// connection. Other threads and tasks hand it work through a locked queue and a wake-up pipe; results come
/// back through continuations. When the broker goes away the thread fails every call in flight at once
/// (`MessagingError.connectionLost`), refuses new ones (`.unavailable`) and reconnects by itself with backoff,
/// declaring its topology and consumers again. Given several broker nodes (`AMQPURL.nodes`), it reconnects to the
/// next one, so the loss of one node of a cluster costs a connection nothing but the reconnect.
public final class AMQPConnection: Sendable {
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

        public init(name: String, topology: Topology = Topology(), consumers: [Consumer] = [], prefetch: Int = 32,
                    receivesReplies: Bool = false, confirmsPublishes: Bool = false) {
            self.name = name
            self.topology = topology
            self.consumers = consumers
            self.prefetch = prefetch
            self.receivesReplies = receivesReplies
            self.confirmsPublishes = confirmsPublishes
        }
    }

    static let directReplyQueue = "amq.rabbitmq.reply-to"

    private enum Operation {
        case publish(OutgoingMessage)
        case publishConfirmed([OutgoingMessage], CheckedContinuation<Void, any Error>)
        case ack(tag: UInt64, generation: Int)
        case reject(tag: UInt64, generation: Int, requeue: Bool)
        case cancelConsumers(CheckedContinuation<Void, Never>)

        var isSeveralMessages: Bool {
            if case .publishConfirmed(let messages, _) = self { return messages.count > 1 }
            return false
        }
    }

    private struct PendingCall {
        let continuation: CheckedContinuation<Delivery, any Error>
        let deadline: UInt64
        let queue: String
        let milliseconds: Int
    }

    private struct State {
        /// Queues work for the connection thread; only the first operation since the thread last took its work
        /// writes to the wake-up pipe (one syscall instead of one per reply, ack or call under load).
        mutating func append(_ operation: Operation) -> Enqueued {
            operations.append(operation)
            if wakePending { return .queued }
            wakePending = true
            return .queuedNeedsWake
        }

        var operations: [Operation] = []
        /// A wake-up is already on its way to the connection thread: no need to write to the pipe again.
        var wakePending = false
        var calls: [String: PendingCall] = [:]
        var connected = false
        var consuming = true
        var stopping = false
        var finished = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let nodes: [AMQPURL]
    private let options: Options
    /// The consumers whose deliveries wait for an ack (the others are settled by the broker as it sends them).
    private let acknowledgedConsumerTags: Set<String>
    private let logger: Logger
    private let state = Mutex(State())
    private let wake = WakePipe()
    private let batchesReceived = Atomic<Int>(0)

    public init(url: AMQPURL, options: Options, logger: Logger) {
        nodes = url.nodes
        self.options = options
        acknowledgedConsumerTags = Set(options.consumers.indices.filter { !options.consumers[$0].autoAck }
            .map { Self.consumerTag(options.name, $0) })
        self.logger = logger.with("amqp.connection", options.name)
    }

    /// Starts the connection thread; it connects in the background and keeps reconnecting until `stop`.
    public func start() {
        let thread = Thread { [self] in self.runLoop() }
        thread.name = "amqp-\(options.name)"
        thread.start()
    }

    public var isConnected: Bool { state.withLock { $0.connected } }

    /// How many `MessageBatch`es arrived (each unpacked into its parts).
    var receivedBatches: Int { batchesReceived.load(ordering: .relaxed) }

    /// Flushes what is queued (replies, acks), closes the connection and ends the thread.
    public func stop() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                state.stopping = true
                if state.finished { return true }
                state.stopWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() } else { wake.signal() }
        }
    }

    /// Fire-and-forget publish (replies, for instance). Dropped if the broker is unreachable.
    public func publish(_ message: OutgoingMessage) {
        enqueue(.publish(message))
    }

    /// Publishes on the confirm channel and returns once the broker has taken responsibility for every message.
    public func publishConfirmed(_ messages: [OutgoingMessage]) async throws {
        guard !messages.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            precondition(options.confirmsPublishes, "publishConfirmed needs Options.confirmsPublishes")
            let outcome = state.withLock { state -> Enqueued in
                guard state.connected, !state.stopping else { return .refused }
                return state.append(.publishConfirmed(messages, continuation))
            }
            finish(outcome) { continuation.resume(throwing: MessagingError.unavailable) }
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
        let correlationId = RandomUUID.string()
        request.correlationId = correlationId
        request.replyTo = Self.directReplyQueue
        request.expirationMilliseconds = milliseconds
        request.headers.merge(CommandDeadline.headers(timeoutMilliseconds: milliseconds)) { _, deadline in deadline }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
        return try await withCheckedThrowingContinuation { continuation in
            let outcome = state.withLock { state -> Enqueued in
                guard state.connected, !state.stopping else { return .refused }
                state.calls[correlationId] = PendingCall(continuation: continuation, deadline: deadline,
                                                         queue: message.routingKey, milliseconds: milliseconds)
                return state.append(.publish(request))
            }
            finish(outcome) { continuation.resume(throwing: MessagingError.unavailable) }
        }
    }

    public func ack(_ delivery: Delivery) {
        if let batch = delivery.batch, !batch.settlePart() { return }
        enqueue(.ack(tag: delivery.tag, generation: delivery.generation))
    }

    /// Without requeue the broker dead-letters the message (to the queue's dead-letter queue).
    public func reject(_ delivery: Delivery, requeue: Bool) {
        guard let batch = delivery.batch else {
            enqueue(.reject(tag: delivery.tag, generation: delivery.generation, requeue: requeue))
            return
        }
        // The broker cannot reject one part of a batch: the part goes back to its queue, or on to the dead-letter
        // queue, as a message of its own, and counts as settled.
        enqueue(.publish(OutgoingMessage(
            routingKey: requeue ? batch.queue : Topology.deadLetterQueue(of: batch.queue), body: delivery.body,
            correlationId: delivery.correlationId, replyTo: delivery.replyTo, messageId: delivery.messageId,
            type: delivery.type, persistent: true, headers: delivery.headers)))
        if batch.settlePart() { enqueue(.ack(tag: delivery.tag, generation: delivery.generation)) }
    }

    /// Stops taking new deliveries (first step of a graceful stop); stays so across reconnects.
    public func cancelConsumers() async {
        await withCheckedContinuation { continuation in
            let outcome = state.withLock { state -> Enqueued in
                state.consuming = false
                guard state.connected else { return .refused }
                return state.append(.cancelConsumers(continuation))
            }
            finish(outcome) { continuation.resume() }
        }
    }

    private func enqueue(_ operation: Operation) {
        finish(state.withLock { $0.append(operation) }) {}
    }

    private enum Enqueued { case queued, queuedNeedsWake, refused }

    private func finish(_ outcome: Enqueued, refused: () -> Void) {
        switch outcome {
        case .queuedNeedsWake: wake.signal()
        case .queued: break
        case .refused: refused()
        }
    }

    // MARK: - The connection thread

    private static func consumerTag(_ connectionName: String, _ index: Int) -> String { "\(connectionName).\(index)" }
    private func consumerTag(_ index: Int) -> String { Self.consumerTag(options.name, index) }
    private var replyConsumerTag: String { "\(options.name).replies" }

    private func runLoop() {
        var session: AMQPSession?
        var confirms = ConfirmTracker<CheckedContinuation<Void, any Error>>()
        var unsettled = UnsettledDeliveries()
        var generation = 0
        var backoff = 0.1
        var rotation = BrokerNodeRotation(count: nodes.count)
        var lastSweep = DispatchTime.now().uptimeNanoseconds
        while true {
            if state.withLock({ $0.stopping }) {
                if let session { try? perform(takeOperations(), on: session, confirms: &confirms, unsettled: &unsettled) }
                session?.close()
                connectionEnded(reason: .unavailable, confirms: &confirms)
                finish()
                return
            }
            guard let current = session else {
                generation += 1
                let node = nodes[rotation.current]
                do {
                    session = try connect(generation: generation, node: node)
                    unsettled.reset()
                    backoff = 0.1
                    rotation.connected()
                    state.withLock { $0.connected = true }
                    logger.info("connected to the message broker", ["amqp.url": node.description])
                } catch {
                    if generation == 1 || backoff >= 2 || nodes.count > 1 {
                        logger.warning("cannot reach the message broker; retrying",
                                       ["amqp.url": node.description, "error": "\(error)"])
                    }
                    failQueuedWhileDisconnected()
                    if rotation.connectFailed() {
                        sleepInterruptibly(seconds: backoff)
                        backoff = min(backoff * 2, 2)
                    }
                }
                continue
            }
            do {
                try perform(takeOperations(), on: current, confirms: &confirms, unsettled: &unsettled)
                try readAvailable(current, confirms: &confirms, unsettled: &unsettled)
            } catch {
                logger.warning("lost the connection to the message broker; reconnecting", ["error": "\(error)"])
                current.abandon()
                session = nil
                rotation.connectionLost()
                connectionEnded(reason: .connectionLost, confirms: &confirms)
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if now - lastSweep > 5_000_000 {
                lastSweep = now
                expireCalls(now: now)
            }
        }
    }

    private func connect(generation: Int, node: AMQPURL) throws -> AMQPSession {
        let session = try AMQPSession(url: node, generation: generation)
        try session.declare(options.topology)
        if !options.consumers.isEmpty { try session.setPrefetch(options.prefetch) }
        if options.receivesReplies {
            try session.consume(queue: Self.directReplyQueue, consumerTag: replyConsumerTag, autoAck: true)
        }
        if state.withLock({ $0.consuming }) {
            for (index, consumer) in options.consumers.enumerated() {
                try session.consume(queue: consumer.queue, consumerTag: consumerTag(index), autoAck: consumer.autoAck)
            }
        }
        if options.confirmsPublishes { try session.enableConfirms() }
        return session
    }

    private func takeOperations() -> [Operation] {
        state.withLock { state in
            defer {
                state.operations.removeAll(keepingCapacity: true)
                state.wakePending = false
            }
            return state.operations
        }
    }

    private func perform(_ queued: [Operation], on session: AMQPSession,
                         confirms: inout ConfirmTracker<CheckedContinuation<Void, any Error>>,
                         unsettled: inout UnsettledDeliveries) throws {
        let operations = Self.coalesced(queued)
        guard operations.count > 1 || operations.contains(where: \.isSeveralMessages) else {
            return try send(operations, on: session, confirms: &confirms, unsettled: &unsettled)
        }
        try session.corked { () throws(AMQPSession.Failure) in
            try send(operations, on: session, confirms: &confirms, unsettled: &unsettled)
        }
    }

    private func send(_ operations: [Operation], on session: AMQPSession,
                      confirms: inout ConfirmTracker<CheckedContinuation<Void, any Error>>,
                      unsettled: inout UnsettledDeliveries) throws(AMQPSession.Failure) {
        // Acks in a row go out together (see `UnsettledDeliveries`), before whatever follows them.
        var acks: [UInt64] = []
        for (index, operation) in operations.enumerated() {
            if case .ack(let tag, let generation) = operation {
                // An ack from before a reconnect is dropped: the broker redelivers that message anyway.
                if generation == session.generation { acks.append(tag) }
                continue
            }
            do {
                try sendAcks(&acks, on: session, unsettled: &unsettled)
            } catch {
                failUnsent(Array(operations[index...]), reason: .connectionLost)
                throw error
            }
            do {
                switch operation {
                case .publish(let message):
                    try session.publish(message)
                case .publishConfirmed(let messages, let continuation):
                    confirms.published(count: messages.count, waiter: continuation)
                    for message in messages { try session.publish(message, channel: AMQPSession.confirmChannel) }
                case .reject(let tag, let generation, let requeue) where generation == session.generation:
                    try session.reject(tag: tag, requeue: requeue)
                    unsettled.settled(tag)
                case .ack, .reject:
                    continue   // from before a reconnect: the broker redelivers that message anyway
                case .cancelConsumers(let continuation):
                    for index in options.consumers.indices { try session.cancel(consumerTag: consumerTag(index)) }
                    continuation.resume()
                }
            } catch {
                // The rest never reached the broker: fail or drop them like everything else in flight. A confirmed
                // publish that failed is already tracked in `confirms`, which the reconnect path fails.
                var unsent = Array(operations[(index + 1)...])
                if case .cancelConsumers = operation { unsent.append(operation) }
                failUnsent(unsent, reason: .connectionLost)
                throw error
            }
        }
        try sendAcks(&acks, on: session, unsettled: &unsettled)
    }

    private func sendAcks(_ acks: inout [UInt64], on session: AMQPSession,
                          unsettled: inout UnsettledDeliveries) throws(AMQPSession.Failure) {
        guard !acks.isEmpty else { return }
        let (upTo, single) = unsettled.acks(for: acks)
        acks.removeAll(keepingCapacity: true)
        if let upTo { try session.ack(tag: upTo, multiple: true) }
        for tag in single { try session.ack(tag: tag) }
    }

    private func readAvailable(_ session: AMQPSession,
                               confirms: inout ConfirmTracker<CheckedContinuation<Void, any Error>>,
                               unsettled: inout UnsettledDeliveries) throws {
        if !session.hasBufferedData {
            let waitingForReplies = state.withLock { !$0.calls.isEmpty }
            var fds = [pollfd(fd: session.socket, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, nfds_t(fds.count), waitingForReplies ? 5 : 500)
            if ready <= 0 { return }
            if fds[1].revents != 0 { wake.drain() }
            if fds[0].revents == 0 { return }
        }
        while let incoming = try session.nextIncoming() {
            switch incoming {
            case .delivery(let consumerTag, let delivery):
                if acknowledgedConsumerTags.contains(consumerTag) { unsettled.delivered(delivery.tag) }
                dispatch(delivery, consumerTag: consumerTag)
            case .confirm(let tag, let multiple, let negative):
                for settled in confirms.settle(tag: tag, multiple: multiple, negative: negative) {
                    if settled.refused {
                        settled.waiter.resume(throwing: MessagingError.publishRejected("negative acknowledgement"))
                    } else {
                        settled.waiter.resume()
                    }
                }
            case .other:
                continue
            }
        }
    }

    private func dispatch(_ delivery: Delivery, consumerTag tag: String) {
        guard delivery.type == MessageBatch.type else { return dispatchOne(delivery, consumerTag: tag) }
        batchesReceived.add(1, ordering: .relaxed)
        let consumer = options.consumers.indices.first(where: { consumerTag($0) == tag }).map { options.consumers[$0] }
        let needsAck = consumer.map { !$0.autoAck } ?? false
        let parts: [MessageBatch.Part]
        do {
            parts = try MessageBatch.decode(delivery.body)
        } catch {
            logger.error("dropped a malformed message batch", ["amqp.routing_key": delivery.routingKey])
            if needsAck { enqueue(.reject(tag: delivery.tag, generation: delivery.generation, requeue: false)) }
            return
        }
        guard !parts.isEmpty else {
            if needsAck { enqueue(.ack(tag: delivery.tag, generation: delivery.generation)) }
            return
        }
        let settlement = needsAck ? BatchSettlement(parts: parts.count, queue: consumer?.queue ?? delivery.routingKey) : nil
        for part in parts {
            var single = delivery
            single.body = part.body
            single.correlationId = part.correlationId
            single.messageId = part.messageId
            single.type = part.type
            single.headers = part.headers
            single.batch = settlement
            dispatchOne(single, consumerTag: tag)
        }
    }

    private func dispatchOne(_ delivery: Delivery, consumerTag tag: String) {
        if tag == replyConsumerTag {
            guard let id = delivery.correlationId,
                  let call = state.withLock({ $0.calls.removeValue(forKey: id) }) else {
                return   // a reply that came after its call timed out
            }
            call.continuation.resume(returning: delivery)
            return
        }
        guard let index = options.consumers.indices.first(where: { consumerTag($0) == tag }) else { return }
        options.consumers[index].handler(delivery)
    }

    private struct BatchKey: Hashable {
        var routingKey: String
        var replyTo: String?
    }

    /// Small requests and replies for the same queue that were queued together go out as one `MessageBatch`
    /// (alone, a message goes out as it is). Acks and rejects wait until the publishes queued before them are
    /// out, so a reply still reaches the broker before the ack of its command; any other operation keeps its place.
    private static func coalesced(_ operations: [Operation]) -> [Operation] {
        guard operations.count > 1 else { return operations }
        var result: [Operation] = []
        var groups: [BatchKey: [OutgoingMessage]] = [:]
        var order: [BatchKey] = []
        var settlements: [Operation] = []
        // Settlements go before the batched publishes (replies, mostly): RabbitMQ 3.10 closes the whole connection
        // (541) when a reply is published to the direct reply-to address of a caller whose node went down, and
        // what follows it on the connection is lost. An ack sent after such a reply would be lost with it, the
        // command redelivered, answered to the same dead address, and so on for as long as it is redelivered.
        func flush() {
            result += settlements
            settlements.removeAll(keepingCapacity: true)
            for key in order { result += batches(groups[key] ?? [], key: key) }
            groups.removeAll(keepingCapacity: true)
            order.removeAll(keepingCapacity: true)
        }
        for operation in operations {
            switch operation {
            case .publish(let message) where isCoalescible(message):
                let key = BatchKey(routingKey: message.routingKey, replyTo: message.replyTo)
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(message)
            case .ack, .reject:
                settlements.append(operation)
            case .publish, .publishConfirmed, .cancelConsumers:
                flush()
                result.append(operation)
            }
        }
        flush()
        return result
    }

    private static func isCoalescible(_ message: OutgoingMessage) -> Bool {
        message.coalescible && !message.persistent && message.exchange.isEmpty
            && message.body.count <= MessageBatch.maximumPartBytes
            && message.type != MessageBatch.type
    }

    private static func batches(_ messages: [OutgoingMessage], key: BatchKey) -> [Operation] {
        stride(from: 0, to: messages.count, by: MessageBatch.maximumParts).map { start in
            let chunk = messages[start..<min(start + MessageBatch.maximumParts, messages.count)]
            let first = chunk[chunk.startIndex]
            guard chunk.count > 1 else { return .publish(first) }
            let parts = chunk.map {
                MessageBatch.Part(correlationId: $0.correlationId, messageId: $0.messageId, type: $0.type,
                                  headers: $0.headers, body: $0.body)
            }
            // The batch lives as long as its longest-lived part; a part's own caller gives up at its own deadline.
            let expirations = chunk.map { $0.expirationMilliseconds }
            let expiration = expirations.contains(where: { $0 == nil }) ? nil : expirations.compactMap { $0 }.max()
            return .publish(OutgoingMessage(
                routingKey: key.routingKey, body: MessageBatch.encode(parts), contentType: MessageBatch.contentType,
                replyTo: first.replyTo, type: MessageBatch.type, expirationMilliseconds: expiration))
        }
    }

    private func expireCalls(now: UInt64) {
        let expired = state.withLock { state -> [PendingCall] in
            let ids = state.calls.filter { $0.value.deadline <= now }.map { $0.key }
            return ids.compactMap { state.calls.removeValue(forKey: $0) }
        }
        for call in expired {
            call.continuation.resume(throwing: MessagingError.timeout(queue: call.queue, milliseconds: call.milliseconds))
        }
    }

    private func connectionEnded(reason: MessagingError,
                                 confirms: inout ConfirmTracker<CheckedContinuation<Void, any Error>>) {
        let (calls, operations) = state.withLock { state in
            state.connected = false
            defer { state.calls = [:]; state.operations = []; state.wakePending = false }
            return (Array(state.calls.values), state.operations)
        }
        calls.forEach { $0.continuation.resume(throwing: reason) }
        confirms.reset().forEach { $0.resume(throwing: reason) }
        failUnsent(operations, reason: reason)
    }

    private func failQueuedWhileDisconnected() {
        failUnsent(takeOperations(), reason: .unavailable)
    }

    private func failUnsent(_ operations: [Operation], reason: MessagingError) {
        for operation in operations {
            switch operation {
            case .publishConfirmed(_, let continuation): continuation.resume(throwing: reason)
            case .cancelConsumers(let continuation): continuation.resume()
            case .publish, .ack, .reject: continue
            }
        }
    }

    private func sleepInterruptibly(seconds: Double) {
        var fds = [pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
        if poll(&fds, 1, Int32(seconds * 1000)) > 0 { wake.drain() }
    }

    private func finish() {
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.stopWaiters = [] }
            return state.stopWaiters
        }
        waiters.forEach { $0.resume() }
    }
}
