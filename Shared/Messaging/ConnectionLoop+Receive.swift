extension ConnectionLoop {
    /// Waits briefly for the broker or for queued work, then handles every frame already available. Calls in
    /// flight shorten the wait, so their timeouts are noticed on time.
    func readAvailable(_ session: AMQPSession) throws {
        if session.hasBufferedData {
            // No wait this turn: the sockets the tasks wait for are looked at all the same.
            mailbox.sockets.pollWaiters()
        } else {
            let readable = mailbox.wait(socket: session.socket, milliseconds: state.hasCallsWaiting ? 5 : 500)
            if !readable { return }
        }
        while let incoming = try session.nextIncoming() {
            switch incoming {
            case .delivery(let consumerTag, let delivery):
                received(delivery, target: tags.target(consumerTag))
            case .confirm(let tag, let multiple, let negative):
                for settled in state.confirmed(tag: tag, multiple: multiple, negative: negative) {
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

    private func received(_ delivery: Delivery, target: ConsumerTags.Target?) {
        let consumer: Int? = if case .consumer(let index) = target { index } else { nil }
        state.delivered(tag: delivery.tag, consumer: consumer)
        guard delivery.type == MessageBatch.type else { return dispatch(delivery, to: target) }
        connection.batchesReceived.add(1, ordering: .relaxed)
        let needsAck = consumer.map { !options.consumers[$0].autoAck } ?? false
        let parts: [MessageBatch.Part]
        do {
            parts = try MessageBatch.decode(delivery.body)
        } catch {
            connection.logger.error("dropped a malformed message batch", ["amqp.routing_key": delivery.routingKey])
            if needsAck { mailbox.enqueue(.reject(tag: delivery.tag, generation: delivery.generation, requeue: false)) }
            return
        }
        guard !parts.isEmpty else {
            if needsAck { mailbox.enqueue(.ack(tag: delivery.tag, generation: delivery.generation)) }
            return
        }
        let queue = consumer.map { options.consumers[$0].queue } ?? delivery.routingKey
        let settlement = needsAck ? BatchSettlement(parts: parts.count, queue: queue) : nil
        for part in MessageBatch.unpack(delivery, parts: parts, settlement: settlement) { dispatch(part, to: target) }
    }

    private func dispatch(_ delivery: Delivery, to target: ConsumerTags.Target?) {
        switch target {
        case .replies:
            // nil: a reply that came after its call timed out.
            state.replyArrived(correlationId: delivery.correlationId)?.waiter.resume(returning: delivery)
        case .consumer(let index):
            options.consumers[index].handler(delivery)
        case nil:
            return
        }
    }
}
