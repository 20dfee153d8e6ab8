import ParseWire

/// A command as it travels to a service: the versioned type picks the handler, the request id and the caller's
/// identity travel with every command so logs and permissions follow the request across services.
public struct Command<Payload: Codable & Sendable>: Codable, Sendable {
    public var type: String
    public var requestId: String
    public var identity: Identity
    public var payload: Payload

    // In key order: the encoder then writes the members where they stay (`ValueEncoding.finishObject`).
    private enum CodingKeys: String, CodingKey { case identity, payload, requestId, type }

    public init(type: String, requestId: String, identity: Identity, payload: Payload) {
        self.type = type
        self.requestId = requestId
        self.identity = identity
        self.payload = payload
    }
}

/// The part of a command a service reads before it knows the payload's type.
public struct CommandHeader: Codable, Sendable {
    public var type: String
    public var requestId: String
    public var identity: Identity
}
