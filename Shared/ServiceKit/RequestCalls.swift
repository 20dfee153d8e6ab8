import Contracts
import Messaging
import Runtime

/// The calls a request's handler makes to other services for that request: as its caller (identity and request id),
/// within the time the request has left, and with their failures as the Parse errors the client gets.
public struct RequestCalls: Sendable {
    let calls: RPCClient
    public let identity: Identity
    let requestId: String
    /// The longest any call waits, whatever the request has left.
    let timeout: Duration

    public init(calls: RPCClient, identity: Identity, requestId: String, timeout: Duration) {
        self.calls = calls
        self.identity = identity
        self.requestId = requestId
        self.timeout = timeout
    }

    public func ask<Payload: Codable & Sendable, Answer: Codable & Sendable>(
        _ type: String, _ payload: Payload, of service: ServiceName
    ) async throws -> Answer {
        do {
            return try await calls.send(type, payload, to: service, requestId: requestId, identity: identity,
                                        timeout: min(Deadline.current?.remaining ?? timeout, timeout))
        } catch let error as MessagingError {
            throw error.parseError
        }
    }
}
