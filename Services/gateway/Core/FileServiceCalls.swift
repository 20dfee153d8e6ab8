import Contracts
import Messaging

/// One request's calls to the files service, sharing its request id and timeout.
struct FileServiceCalls: Sendable {
    let client: RPCClient
    let requestId: String
    let timeout: Duration

    func send<Payload: Codable & Sendable, Result: Codable & Sendable>(
        _ type: String, _ payload: Payload, identity: Identity
    ) async throws -> Result {
        try await client.send(type, payload, to: .files, requestId: requestId, identity: identity, timeout: timeout)
    }

    /// A raw command: file bytes as the message body, their description in headers.
    func call(raw type: String, headers: [String: String], body: [UInt8] = [], identity: Identity) async throws
        -> RawMessage {
        try await client.call(raw: type, RawMessage(headers: headers, body: body), to: .files, requestId: requestId,
                              identity: identity, timeout: timeout)
    }
}
