import CRabbitMQ
import Glibc

/// One open AMQP connection with its channels. It is created, used and destroyed on its connection thread only:
/// librabbitmq connections must never be shared between threads.
final class AMQPSession {
    static let mainChannel: amqp_channel_t = 1
    static let confirmChannel: amqp_channel_t = 2

    enum Incoming {
        case delivery(consumerTag: String, Delivery)
        case confirm(tag: UInt64, multiple: Bool, negative: Bool)
        case other
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let connection: amqp_connection_state_t
    let generation: Int
    private var open = true

    init(url: AMQPURL, generation: Int, timeoutSeconds: Int = 5) throws(Failure) {
        guard let connection = amqp_new_connection() else { throw Failure(description: "cannot allocate a connection") }
        self.connection = connection
        self.generation = generation
        // From here on a thrown error runs deinit, which destroys the connection (exactly once).
        guard let socket = amqp_tcp_socket_new(connection) else {
            throw Failure(description: "cannot allocate a socket")
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        _ = amqp_set_handshake_timeout(connection, &timeout)
        _ = amqp_set_rpc_timeout(connection, &timeout)
        let status = amqp_socket_open_noblock(socket, url.host, Int32(url.port), &timeout)
        guard status == AMQP_STATUS_OK.rawValue else {
            throw Failure(description: "cannot connect to \(url): \(String(cString: amqp_error_string2(status)))")
        }
        // Heartbeats off: librabbitmq only sends them inside its own calls (see the README's messaging notes).
        let login = swift_amqp_login_plain(connection, url.vhost, 0, 131_072, 0, url.user, url.password)
        try check(login, "login")
        amqp_channel_open(connection, Self.mainChannel)
        try check(amqp_get_rpc_reply(connection), "channel.open")
    }

    deinit {
        if open { amqp_destroy_connection(connection) }
    }

    var socket: Int32 { amqp_get_sockfd(connection) }

    /// True when frames are already read into memory, so `poll(2)` on the socket would miss them.
    var hasBufferedData: Bool { amqp_data_in_buffer(connection) != 0 || amqp_frames_enqueued(connection) != 0 }

    func declare(_ topology: Topology) throws(Failure) {
        for exchange in topology.exchanges {
            let arena = CArena()
            amqp_exchange_declare(connection, Self.mainChannel, arena.bytes(exchange.name), arena.bytes(exchange.type),
                                  0, 1, 0, 0, amqp_empty_table)
            try check(amqp_get_rpc_reply(connection), "exchange.declare \(exchange.name)")
        }
        for queue in topology.queues {
            let arena = CArena()
            amqp_queue_declare(connection, Self.mainChannel, arena.bytes(queue.name), 0, queue.durable ? 1 : 0,
                               queue.exclusive ? 1 : 0, queue.autoDelete ? 1 : 0, arena.table(queue.arguments))
            try check(amqp_get_rpc_reply(connection), "queue.declare \(queue.name)")
        }
        for binding in topology.bindings {
            let arena = CArena()
            amqp_queue_bind(connection, Self.mainChannel, arena.bytes(binding.queue), arena.bytes(binding.exchange),
                            arena.bytes(binding.routingKey), amqp_empty_table)
            try check(amqp_get_rpc_reply(connection), "queue.bind \(binding.queue)")
        }
    }

    func setPrefetch(_ count: Int) throws(Failure) {
        amqp_basic_qos(connection, Self.mainChannel, 0, UInt16(clamping: count), 0)
        try check(amqp_get_rpc_reply(connection), "basic.qos")
    }

    func consume(queue: String, consumerTag: String, autoAck: Bool) throws(Failure) {
        let arena = CArena()
        amqp_basic_consume(connection, Self.mainChannel, arena.bytes(queue), arena.bytes(consumerTag), 0,
                           autoAck ? 1 : 0, 0, amqp_empty_table)
        try check(amqp_get_rpc_reply(connection), "basic.consume \(queue)")
    }

    func cancel(consumerTag: String) throws(Failure) {
        let arena = CArena()
        amqp_basic_cancel(connection, Self.mainChannel, arena.bytes(consumerTag))
        try check(amqp_get_rpc_reply(connection), "basic.cancel")
    }

    func enableConfirms() throws(Failure) {
        amqp_channel_open(connection, Self.confirmChannel)
        try check(amqp_get_rpc_reply(connection), "channel.open (confirms)")
        amqp_confirm_select(connection, Self.confirmChannel)
        try check(amqp_get_rpc_reply(connection), "confirm.select")
    }

    func publish(_ message: OutgoingMessage, channel: amqp_channel_t = mainChannel) throws(Failure) {
        let arena = CArena()
        var properties = amqp_basic_properties_t()
        var flags = UInt32(AMQP_BASIC_CONTENT_TYPE_FLAG) | UInt32(AMQP_BASIC_DELIVERY_MODE_FLAG)
        properties.content_type = arena.bytes(message.contentType)
        properties.delivery_mode = message.persistent ? 2 : 1
        func set(_ value: String?, _ flag: Int32, _ field: WritableKeyPath<amqp_basic_properties_t, amqp_bytes_t>) {
            guard let value else { return }
            flags |= UInt32(flag)
            properties[keyPath: field] = arena.bytes(value)
        }
        set(message.correlationId, AMQP_BASIC_CORRELATION_ID_FLAG, \.correlation_id)
        set(message.replyTo, AMQP_BASIC_REPLY_TO_FLAG, \.reply_to)
        set(message.messageId, AMQP_BASIC_MESSAGE_ID_FLAG, \.message_id)
        set(message.type, AMQP_BASIC_TYPE_FLAG, \.type)
        set(message.expirationMilliseconds.map { String(max(0, $0)) }, AMQP_BASIC_EXPIRATION_FLAG, \.expiration)
        if !message.headers.isEmpty {
            flags |= UInt32(AMQP_BASIC_HEADERS_FLAG)
            properties.headers = arena.table(message.headers)
        }
        properties._flags = flags
        let exchange = arena.bytes(message.exchange)
        let routingKey = arena.bytes(message.routingKey)
        let status = message.body.withUnsafeBytes { raw in
            let body = amqp_bytes_t(len: raw.count, bytes: UnsafeMutableRawPointer(mutating: raw.baseAddress))
            return amqp_basic_publish(connection, channel, exchange, routingKey, 0, 0, &properties, body)
        }
        withExtendedLifetime(arena) {}
        guard status == AMQP_STATUS_OK.rawValue else {
            throw Failure(description: "publish failed: \(String(cString: amqp_error_string2(status)))")
        }
    }

    /// Runs `body` with the socket corked (`TCP_CORK`): the frames it writes leave in as few segments as fit,
    /// when it returns, instead of one or more per message. librabbitmq writes each message as it is published;
    /// on loopback every write that leaves wakes the broker, which was most of a service's cost of publishing a
    /// round of events or replies.
    func corked<T>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        let fd = socket
        var on: Int32 = 1, off: Int32 = 0
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &on, socklen_t(MemoryLayout<Int32>.size))
        defer { setsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &off, socklen_t(MemoryLayout<Int32>.size)) }
        return try body()
    }

    /// With `multiple`, settles every unsettled delivery up to and including `tag`.
    func ack(tag: UInt64, multiple: Bool = false) throws(Failure) {
        let status = amqp_basic_ack(connection, Self.mainChannel, tag, multiple ? 1 : 0)
        guard status == AMQP_STATUS_OK.rawValue else { throw Failure(description: "basic.ack failed") }
    }

    func reject(tag: UInt64, requeue: Bool) throws(Failure) {
        let status = amqp_basic_reject(connection, Self.mainChannel, tag, requeue ? 1 : 0)
        guard status == AMQP_STATUS_OK.rawValue else { throw Failure(description: "basic.reject failed") }
    }

    /// Reads one frame if a whole one is available now; nil when there is none.
    func nextIncoming() throws(Failure) -> Incoming? {
        var frame = amqp_frame_t()
        var zero = timeval(tv_sec: 0, tv_usec: 0)
        let status = amqp_simple_wait_frame_noblock(connection, &frame, &zero)
        if status == AMQP_STATUS_TIMEOUT.rawValue { return nil }
        guard status == AMQP_STATUS_OK.rawValue else {
            throw Failure(description: "connection lost: \(String(cString: amqp_error_string2(status)))")
        }
        defer { amqp_maybe_release_buffers(connection) }
        guard frame.frame_type == UInt8(AMQP_FRAME_METHOD) else { return .other }
        let method = frame.payload.method
        switch method.id {
        case AMQP_BASIC_DELIVER_METHOD:
            let deliver = method.decoded.assumingMemoryBound(to: amqp_basic_deliver_t.self).pointee
            let consumerTag = deliver.consumer_tag.string
            let exchange = deliver.exchange.string
            let routingKey = deliver.routing_key.string
            var message = amqp_message_t()
            try check(amqp_read_message(connection, frame.channel, &message, 0), "reading a delivery")
            defer { amqp_destroy_message(&message) }
            let properties = message.properties
            func text(_ flag: Int32, _ value: amqp_bytes_t) -> String? {
                properties._flags & UInt32(flag) != 0 ? value.string : nil
            }
            let delivery = Delivery(
                body: message.body.array, exchange: exchange, routingKey: routingKey,
                correlationId: text(AMQP_BASIC_CORRELATION_ID_FLAG, properties.correlation_id),
                replyTo: text(AMQP_BASIC_REPLY_TO_FLAG, properties.reply_to),
                messageId: text(AMQP_BASIC_MESSAGE_ID_FLAG, properties.message_id),
                type: text(AMQP_BASIC_TYPE_FLAG, properties.type),
                headers: properties._flags & UInt32(AMQP_BASIC_HEADERS_FLAG) != 0 ? properties.headers.stringValues : [:],
                redelivered: deliver.redelivered != 0, tag: deliver.delivery_tag, generation: generation)
            return .delivery(consumerTag: consumerTag, delivery)
        case AMQP_BASIC_ACK_METHOD:
            let ack = method.decoded.assumingMemoryBound(to: amqp_basic_ack_t.self).pointee
            return .confirm(tag: ack.delivery_tag, multiple: ack.multiple != 0, negative: false)
        case AMQP_BASIC_NACK_METHOD:
            let nack = method.decoded.assumingMemoryBound(to: amqp_basic_nack_t.self).pointee
            return .confirm(tag: nack.delivery_tag, multiple: nack.multiple != 0, negative: true)
        case AMQP_BASIC_RETURN_METHOD:
            var message = amqp_message_t()
            try check(amqp_read_message(connection, frame.channel, &message, 0), "reading a returned message")
            amqp_destroy_message(&message)
            return .other
        case AMQP_CHANNEL_CLOSE_METHOD:
            let close = method.decoded.assumingMemoryBound(to: amqp_channel_close_t.self).pointee
            throw Failure(description: "channel closed by the broker: \(close.reply_code) \(close.reply_text.string)")
        case AMQP_CONNECTION_CLOSE_METHOD:
            let close = method.decoded.assumingMemoryBound(to: amqp_connection_close_t.self).pointee
            let reason = "\(close.reply_code) \(close.reply_text.string)"
            var closeOk = amqp_connection_close_ok_t(dummy: 0)
            _ = amqp_send_method(connection, 0, AMQP_CONNECTION_CLOSE_OK_METHOD, &closeOk)
            throw Failure(description: "connection closed by the broker: \(reason)")
        case AMQP_BASIC_CANCEL_METHOD:
            throw Failure(description: "the broker cancelled a consumer (queue deleted?)")
        default:
            return .other
        }
    }

    /// Polite close; if the connection is already broken this returns quickly with an error we ignore.
    func close() {
        guard open else { return }
        open = false
        _ = amqp_connection_close(connection, AMQP_REPLY_SUCCESS)
        amqp_destroy_connection(connection)
    }

    /// Drops a connection known to be broken without talking to the broker.
    func abandon() {
        guard open else { return }
        open = false
        amqp_destroy_connection(connection)
    }

    func check(_ reply: amqp_rpc_reply_t, _ what: String) throws(Failure) {
        switch reply.reply_type {
        case AMQP_RESPONSE_NORMAL:
            return
        case AMQP_RESPONSE_LIBRARY_EXCEPTION:
            throw Failure(description: "\(what): \(String(cString: amqp_error_string2(reply.library_error)))")
        case AMQP_RESPONSE_SERVER_EXCEPTION:
            if reply.reply.id == AMQP_CONNECTION_CLOSE_METHOD, let decoded = reply.reply.decoded {
                let close = decoded.assumingMemoryBound(to: amqp_connection_close_t.self).pointee
                throw Failure(description: "\(what): broker closed the connection: \(close.reply_code) \(close.reply_text.string)")
            }
            if reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD, let decoded = reply.reply.decoded {
                let close = decoded.assumingMemoryBound(to: amqp_channel_close_t.self).pointee
                throw Failure(description: "\(what): broker closed the channel: \(close.reply_code) \(close.reply_text.string)")
            }
            throw Failure(description: "\(what): broker error")
        default:
            throw Failure(description: "\(what): no reply")
        }
    }
}
