import Contracts
import ParseWire
import Runtime

/// Maps command types (`ping.v1`, ...) to handlers. A handler's `ParseError` is an answer for the client;
/// any other error means the command could not be handled now and is retried, then dead-lettered.
public struct CommandRouter: Sendable {
    typealias Route = @Sendable ([UInt8], Logger) async throws -> [UInt8]

    private var routes: [String: Route] = [:]

    public init() {}

    public mutating func register<Payload: Codable & Sendable, Result: Codable & Sendable>(
        _ type: String, _ payload: Payload.Type,
        _ handle: @escaping @Sendable (Command<Payload>, Logger) async throws -> Result
    ) {
        routes[type] = { body, logger in
            let command: Command<Payload>
            do {
                command = try JSONCoding.decode(Command<Payload>.self, from: body)
            } catch {
                logger.warning("malformed command", ["msg.type": type, "error": "\(error)"])
                return try JSONCoding.encode(CommandReply<Empty>.failure(ParseError(.invalidJSON, "Malformed \(type) command.")))
            }
            do {
                return try JSONCoding.encode(CommandReply<Result>.success(try await handle(command, logger)))
            } catch let error as ParseError {
                return try JSONCoding.encode(CommandReply<Empty>.failure(error))
            }
        }
    }

    public var types: [String] { routes.keys.sorted() }

    func route(_ type: String) -> Route? { routes[type] }
}
