/// Message batches, an opt-in layer over a connection's outgoing operations (`AMQPConnection.Options
/// .batchesMessages`): small requests and replies for one queue that were queued at the same moment leave as one
/// `MessageBatch` (see docs/architecture.md, "Batches"). Only messages marked `coalescible` take part. Receiving
/// needs no opt-in: every connection unpacks the batches it is sent, since the sender decides.
struct MessageCoalescer: Sendable {
    struct BatchKey: Hashable {
        var routingKey: String
        var replyTo: String?
    }

    /// Small requests and replies for the same queue that were queued together go out as one `MessageBatch`
    /// (alone, a message goes out as it is). Acks and rejects wait until the publishes queued before them are
    /// out, so a reply still reaches the broker before the ack of its command; any other operation keeps its place.
    func coalesced(_ operations: [ConnectionOperation]) -> [ConnectionOperation] {
        guard operations.count > 1 else { return operations }
        var result: [ConnectionOperation] = []
        var groups: [BatchKey: [OutgoingMessage]] = [:]
        var order: [BatchKey] = []
        var settlements: [ConnectionOperation] = []
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
            case .publish, .call, .publishConfirmed, .cancelConsumers:
                flush()
                result.append(operation)
            }
        }
        flush()
        return result
    }

    func isCoalescible(_ message: OutgoingMessage) -> Bool {
        message.coalescible && !message.persistent && message.exchange.isEmpty
            && message.body.count <= MessageBatch.maximumPartBytes
            && message.type != MessageBatch.type
    }

    func batches(_ messages: [OutgoingMessage], key: BatchKey) -> [ConnectionOperation] {
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
}
