import Contracts
import ParseWire
import Runtime

/// Maps command types (`ping.v1`, ...) to handlers. A handler's `ParseError` is an answer for the client;
/// any other error means the command could not be handled now and is retried, then dead-lettered.
public struct CommandRouter: Sendable {
    /// A route reads the whole delivery (raw commands keep their metadata in headers) and answers with a body
    /// and the reply's headers.
    typealias Route = @Sendable (Delivery, Logger) async throws -> RouteReply

    struct RouteReply: Sendable {
        var body: [UInt8]
        var headers: [String: String] = [:]
        /// The answer is a Parse error (counted as `refused`, not `ok`).
        var refused = false
    }

    var routes: [String: Route] = [:]

    public init() {}

    public mutating func register<Payload: Codable & Sendable, Result: Codable & Sendable>(
        _ type: String, _ payload: Payload.Type,
        _ handle: @escaping @Sendable (Command<Payload>, Logger) async throws -> Result
    ) {
        routes[type] = { delivery, logger in
            let command: Command<Payload>
            do {
                command = try JSONCoding.decode(Command<Payload>.self, from: delivery.body)
            } catch {
                logger.warning("malformed command", ["msg.type": type, "error": "\(error)"])
                return RouteReply(body: try Self.failure(ParseError(.invalidJSON, "Malformed \(type) command.")), refused: true)
            }
            do {
                return RouteReply(body: try JSONCoding.encode(CommandReply<Result>.success(try await handle(command, logger))))
            } catch let error as ParseError {
                return RouteReply(body: try Self.failure(error), refused: true)
            }
        }
    }

    static func failure(_ error: ParseError) throws -> [UInt8] {
        try JSONCoding.encode(CommandReply<Empty>.failure(error))
    }

    public var types: [String] { routes.keys.sorted() }

    func route(_ type: String) -> Route? { routes[type] }
}
