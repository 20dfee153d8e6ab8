extension ConnectionLoop {
    /// Sends what other threads queued, in order, through the batching layer when the connection has it; several
    /// operations go out corked, as few writes.
    func perform(_ queued: [ConnectionOperation], on session: AMQPSession) throws {
        guard !queued.isEmpty else { return }
        let operations = coalescer.map { $0.coalesced(registeringCalls(queued)) } ?? queued
        guard operations.count > 1 || operations.contains(where: \.isSeveralMessages) else {
            return try send(operations, on: session)
        }
        try session.corked { () throws(AMQPSession.Failure) in try send(operations, on: session) }
    }

    /// Calls become plain publishes once their waiters are in the call table, so that they can share batches.
    private func registeringCalls(_ operations: [ConnectionOperation]) -> [ConnectionOperation] {
        operations.map { operation in
            guard case .call(let message, let call) = operation else { return operation }
            state.callSent(call, correlationId: message.correlationId ?? "")
            return .publish(message)
        }
    }

    private func send(_ operations: [ConnectionOperation], on session: AMQPSession) throws(AMQPSession.Failure) {
        // Acks in a row go out together (see `UnsettledDeliveries`), before whatever follows them.
        var acks: [UInt64] = []
        for (index, operation) in operations.enumerated() {
            if case .ack(let tag, let generation) = operation {
                // An ack from before a reconnect is dropped: the broker redelivers that message anyway.
                if state.isCurrent(generation: generation) { acks.append(tag) }
                continue
            }
            do {
                try sendAcks(&acks, on: session)
            } catch {
                ConnectionOperation.fail(operations[index...], reason: .connectionLost)
                throw error
            }
            do {
                switch operation {
                case .publish(let message):
                    try session.publish(message)
                case .call(let message, let call):
                    // Registered before it is sent: the reply can only come after.
                    state.callSent(call, correlationId: message.correlationId ?? "")
                    try session.publish(message)
                case .publishConfirmed(let messages, let continuation):
                    state.publishedConfirmed(count: messages.count, waiter: continuation)
                    for message in messages { try session.publish(message, channel: AMQPSession.confirmChannel) }
                case .reject(let tag, let generation, let requeue) where state.isCurrent(generation: generation):
                    try session.reject(tag: tag, requeue: requeue)
                    state.rejected(tag: tag)
                case .ack, .reject:
                    continue   // from before a reconnect: the broker redelivers that message anyway
                case .cancelConsumers(let continuation):
                    for index in options.consumers.indices {
                        try session.cancel(consumerTag: tags.tag(ofConsumer: index))
                    }
                    state.consumersCancelled()
                    continuation.resume()
                }
            } catch {
                // The rest never reached the broker: fail or drop them like everything else in flight. A call or a
                // confirmed publish that failed is already in the state, whose teardown fails it.
                var unsent = Array(operations[(index + 1)...])
                if case .cancelConsumers = operation { unsent.append(operation) }
                ConnectionOperation.fail(unsent, reason: .connectionLost)
                throw error
            }
        }
        try sendAcks(&acks, on: session)
    }

    private func sendAcks(_ acks: inout [UInt64], on session: AMQPSession) throws(AMQPSession.Failure) {
        guard !acks.isEmpty else { return }
        let (upTo, single) = state.acks(for: acks)
        acks.removeAll(keepingCapacity: true)
        if let upTo { try session.ack(tag: upTo, multiple: true) }
        for tag in single { try session.ack(tag: tag) }
    }
}
