import Dispatch

/// The I/O loop of an `AMQPConnection`, run on the connection's own thread: it owns the librabbitmq session, takes
/// the work other threads queued, reads what the broker sent, and reports both to `AMQPConnectionState`, doing
/// what that decides (connect where, pause how long, fail what). It keeps no bookkeeping of its own.
final class ConnectionLoop {
    typealias State = AMQPConnectionState<CheckedContinuation<Delivery, any Error>, ConfirmWaiter>

    let connection: AMQPConnection
    let mailbox: ConnectionMailbox
    let options: AMQPConnection.Options
    let tags: ConsumerTags
    let coalescer: MessageCoalescer?
    var state: State
    private var session: AMQPSession?

    init(connection: AMQPConnection) {
        self.connection = connection
        mailbox = connection.mailbox
        options = connection.options
        tags = ConsumerTags(connectionName: options.name, consumers: options.consumers.count)
        coalescer = options.batchesMessages ? MessageCoalescer() : nil
        var setup = options.stateSetup
        setup.nodes = connection.nodes.count
        state = State(setup: setup, now: DispatchTime.now().uptimeNanoseconds)
    }

    func run() {
        mailbox.enteredLoop()
        while true {
            if mailbox.isStopping { return stop() }
            guard let current = session else {
                connect()
                continue
            }
            do {
                try perform(mailbox.take(), on: current)
                try readAvailable(current)
                connection.executor.runQueuedJobs()
                connection.metrics.unacked.set(Double(state.unsettledCount))
            } catch {
                connection.logger.warning("lost the connection to the message broker; reconnecting",
                                          ["error": "\(error)"])
                current.abandon()
                session = nil
                connection.metrics.connected.set(0)
                connection.metrics.unacked.set(0)
                end(state.connectionLost(), reason: .connectionLost)
            }
            expireCalls()
        }
    }

    private func connect() {
        let attempt = state.attempt()
        let node = connection.nodes[attempt.node]
        do {
            session = try open(node, generation: attempt.generation)
            mailbox.connected()
            connection.metrics.connected.set(1)
            if state.connected() {
                connection.metrics.reconnects.increment()
                options.reconnected?()
            }
            connection.logger.info("connected to the message broker", ["amqp.url": node.description])
        } catch {
            session = nil
            let retry = state.connectFailed()
            if retry.worthLogging {
                connection.logger.warning("cannot reach the message broker; retrying",
                                          ["amqp.url": node.description, "error": "\(error)"])
            }
            ConnectionOperation.fail(mailbox.take(), reason: .unavailable)
            if let pause = retry.pauseSeconds {
                self.pause(seconds: pause)
                state.backoffElapsed()
            }
        }
    }

    /// Opens a session and runs the handshake the state asks for on it.
    private func open(_ node: AMQPURL, generation: Int) throws -> AMQPSession {
        let opened = try AMQPSession(url: node, generation: generation)
        for step in state.sessionOpened(consuming: mailbox.isConsuming) {
            switch step {
            case .declareTopology: try opened.declare(options.topology)
            case .setPrefetch: try opened.setPrefetch(options.prefetch)
            case .consumeReplies:
                try opened.consume(queue: AMQPConnection.directReplyQueue, consumerTag: tags.replies, autoAck: true)
            case .consume(let index):
                try opened.consume(queue: options.consumers[index].queue, consumerTag: tags.tag(ofConsumer: index),
                                   autoAck: options.consumers[index].autoAck)
            case .enableConfirms: try opened.enableConfirms()
            }
            state.stepDone(step)
        }
        return opened
    }

    private func stop() {
        state.closing()
        if let session {
            try? perform(mailbox.take(), on: session)
            session.close()
        }
        end(state.closed(), reason: .unavailable)
        connection.executor.handOver(mailbox.finished())
    }

    /// Waits `seconds` before the next attempt to connect, or less if work (or a stop) arrives; the connection's
    /// tasks keep running meanwhile.
    private func pause(seconds: Double) {
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1_000_000_000)
        while !mailbox.isStopping, !mailbox.hasOperations {
            connection.executor.runQueuedJobs()
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < end else { return }
            mailbox.sleep(milliseconds: Int32(min((end - now) / 1_000_000 + 1, UInt64(Int32.max))))
        }
    }

    /// Fails what a closed connection leaves: calls, unconfirmed publishes, and whatever was still queued.
    private func end(_ teardown: State.Teardown, reason: MessagingError) {
        let queued = mailbox.disconnected()
        teardown.calls.forEach { $0.resume(throwing: reason) }
        teardown.confirms.forEach { $0.resume(throwing: reason) }
        ConnectionOperation.fail(queued, reason: reason)
    }

    private func expireCalls() {
        for call in state.timer(now: DispatchTime.now().uptimeNanoseconds) {
            MessagingMetrics.rpcTimeouts.labels(call.queue).increment()
            call.waiter.resume(throwing: MessagingError.timeout(queue: call.queue, milliseconds: call.milliseconds))
        }
    }
}
