import Contracts
import ParseWire
import Runtime

extension CommandRouter {
    /// A command whose body is bytes as they are, described by its headers (file parts). The handler's answer
    /// goes back as raw bytes and headers too; its `ParseError` as the usual JSON failure.
    public mutating func registerRaw(
        _ type: String, _ handle: @escaping @Sendable (RawCommand, Logger) async throws -> RawMessage
    ) {
        routes[type] = { delivery, logger in
            guard let text = delivery.headers[RawHeaders.identity],
                  let identity = try? JSONCoding.decode(Identity.self, from: Array(text.utf8)) else {
                logger.warning("malformed command", ["msg.type": type, "error": "no identity header"])
                return RouteReply(body: try Self.failure(ParseError(.invalidJSON, "Malformed \(type) command.")), refused: true)
            }
            let command = RawCommand(type: type, requestId: Envelope.requestId(of: delivery) ?? "", identity: identity,
                                     headers: delivery.headers, body: delivery.body)
            do {
                var answer = try await handle(command, logger)
                answer.headers[RawHeaders.status] = RawHeaders.ok
                return RouteReply(body: answer.body, headers: answer.headers)
            } catch let error as ParseError {
                return RouteReply(body: try Self.failure(error), refused: true)
            }
        }
    }
}
