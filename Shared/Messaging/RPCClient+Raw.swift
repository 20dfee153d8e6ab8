import Contracts
import ParseWire
import Runtime

extension RPCClient {
    /// Sends a raw command (bytes as the body, metadata in `message.headers`) and returns the raw reply. Errors
    /// as `send`: a service's refusal is its `ParseError`, transport failures are `MessagingError`s.
    public func call(raw type: String, _ message: RawMessage, to service: ServiceName, requestId: String,
                     identity: Identity, timeout: Duration) async throws -> RawMessage {
        try await call(raw: type, message, queue: service.commandQueue, requestId: requestId, identity: identity,
                       timeout: timeout)
    }

    /// The same, to any command queue (tests use queues of their own).
    func call(raw type: String, _ message: RawMessage, queue: String, requestId: String, identity: Identity,
              timeout: Duration) async throws -> RawMessage {
        CommandTrace.current?.record(type)
        var headers = message.headers
        headers[RawHeaders.identity] = String(decoding: try JSONCoding.encode(identity), as: UTF8.self)
        let outgoing = OutgoingMessage(routingKey: queue, body: message.body, contentType: "application/octet-stream",
                                       type: type, headers: headers)
        let reply = try await connection.call(Envelope.stamped(outgoing, requestId: requestId), timeout: timeout)
        if reply.headers[RawHeaders.status] == RawHeaders.ok {
            var answer = reply.headers
            answer[RawHeaders.status] = nil
            return RawMessage(headers: answer, body: reply.body)
        }
        let failure: CommandReply<Empty>
        do {
            failure = try JSONCoding.decode(CommandReply<Empty>.self, from: reply.body)
        } catch {
            throw MessagingError.malformedReply("\(type) from \(queue): \(error)")
        }
        _ = try failure.get()
        throw MessagingError.malformedReply("\(type) from \(queue): a success without its status header")
    }
}
