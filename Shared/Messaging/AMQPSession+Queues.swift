import CRabbitMQ
import Glibc

/// Operations on a queue's contents, for operators' tools (dead letters): its length, taking messages one by one
/// without a consumer, emptying it. Like the rest of the session, only its own thread may call them.
extension AMQPSession {
    /// A message taken with `basic.get`, not yet acknowledged.
    struct Taken {
        let tag: UInt64
        let message: DeadLetter
    }

    /// The number of ready messages. A passive declare answers with the queue's length whatever arguments it was
    /// declared with (a quorum queue refuses a declaration without its `x-queue-type`).
    func messageCount(_ queue: String) throws(Failure) -> Int {
        try declaredPassively(queue).messages
    }

    /// How many consumers read `queue` now (a worker that is connected has one).
    func consumerCount(_ queue: String) throws(Failure) -> Int {
        try declaredPassively(queue).consumers
    }

    private func declaredPassively(_ queue: String) throws(Failure) -> (messages: Int, consumers: Int) {
        let arena = CArena()
        let ok = amqp_queue_declare(connection, Self.mainChannel, arena.bytes(queue), 1, 1, 0, 0, amqp_empty_table)
        try check(amqp_get_rpc_reply(connection), "queue.declare \(queue)")
        return (Int(ok?.pointee.message_count ?? 0), Int(ok?.pointee.consumer_count ?? 0))
    }

    /// The next message of `queue`, unacknowledged (it goes back to the queue if the session closes first);
    /// nil when the queue is empty.
    func take(_ queue: String) throws(Failure) -> Taken? {
        let arena = CArena()
        let reply = amqp_basic_get(connection, Self.mainChannel, arena.bytes(queue), 0)
        try check(reply, "basic.get \(queue)")
        guard reply.reply.id == AMQP_BASIC_GET_OK_METHOD, let decoded = reply.reply.decoded else { return nil }
        let ok = decoded.assumingMemoryBound(to: amqp_basic_get_ok_t.self).pointee
        var message = amqp_message_t()
        try check(amqp_read_message(connection, Self.mainChannel, &message, 0), "reading a message of \(queue)")
        defer { amqp_destroy_message(&message) }
        let properties = message.properties
        func text(_ flag: Int32, _ value: amqp_bytes_t) -> String? {
            properties._flags & UInt32(flag) != 0 ? value.string : nil
        }
        let hasHeaders = properties._flags & UInt32(AMQP_BASIC_HEADERS_FLAG) != 0
        let death = hasHeaders ? properties.headers.firstDeath : nil
        return Taken(tag: ok.delivery_tag, message: DeadLetter(
            body: message.body.array,
            contentType: text(AMQP_BASIC_CONTENT_TYPE_FLAG, properties.content_type),
            type: text(AMQP_BASIC_TYPE_FLAG, properties.type),
            messageId: text(AMQP_BASIC_MESSAGE_ID_FLAG, properties.message_id),
            correlationId: text(AMQP_BASIC_CORRELATION_ID_FLAG, properties.correlation_id),
            headers: hasHeaders ? properties.headers.stringValues : [:],
            reason: death?.reason, fromQueue: death?.queue))
    }

    /// Empties `queue`; the number of messages removed.
    func purge(_ queue: String) throws(Failure) -> Int {
        let arena = CArena()
        let ok = amqp_queue_purge(connection, Self.mainChannel, arena.bytes(queue))
        try check(amqp_get_rpc_reply(connection), "queue.purge \(queue)")
        return Int(ok?.pointee.message_count ?? 0)
    }

    /// Waits (at most `timeoutSeconds`) for the broker to confirm every message published on the confirm
    /// channel up to `tag`; false when one was refused or the time ran out.
    func awaitConfirms(upTo tag: UInt64, timeoutSeconds: Int = 10) throws(Failure) -> Bool {
        var confirmed: UInt64 = 0
        let deadline = time(nil) + timeoutSeconds
        while confirmed < tag {
            guard time(nil) <= deadline else { return false }
            switch try nextIncoming() {
            case .confirm(let confirmedTag, _, let negative)?:
                if negative { return false }
                confirmed = max(confirmed, confirmedTag)
            case .delivery?, .other?:
                continue
            case nil:
                var pollfd = Glibc.pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                _ = poll(&pollfd, 1, 100)
            }
        }
        return true
    }
}

extension amqp_table_t {
    /// The reason and queue of the latest dead-lettering, from the `x-death` header RabbitMQ adds.
    var firstDeath: (reason: String?, queue: String?)? {
        for index in 0..<Int(num_entries) where entries[index].key.string == "x-death" {
            let value = entries[index].value
            guard UInt32(value.kind) == AMQP_FIELD_KIND_ARRAY.rawValue, value.value.array.num_entries > 0 else { return nil }
            let first = value.value.array.entries[0]
            guard UInt32(first.kind) == AMQP_FIELD_KIND_TABLE.rawValue else { return nil }
            let fields = first.value.table.stringValues
            return (fields["reason"], fields["queue"])
        }
        return nil
    }
}
