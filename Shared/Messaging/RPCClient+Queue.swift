import Contracts
import ParseWire

extension RPCClient {
    /// `send` to a command queue named outright, for a service outside `ServiceName` (Cloud Code's `cloud`, which
    /// the writing services call only when a trigger is registered).
    public func send<Payload: Codable & Sendable, Result: Codable & Sendable>(
        _ type: String, _ payload: Payload, toQueue queue: String, requestId: String, identity: Identity,
        timeout: Duration, expecting: Result.Type = Result.self
    ) async throws -> Result {
        try await send(type, payload, queue: queue, requestId: requestId, identity: identity, timeout: timeout,
                       safeToRunTwice: false)
    }
}
