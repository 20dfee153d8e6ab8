import Contracts

/// A command or reply whose body is bytes as they are (file parts), described by string headers: no JSON and no
/// base64 around the bytes. See `RPCClient.call(raw:...)` and `CommandRouter.registerRaw`.
public struct RawMessage: Sendable, Equatable {
    public var headers: [String: String]
    public var body: [UInt8]

    public init(headers: [String: String] = [:], body: [UInt8] = []) {
        self.headers = headers
        self.body = body
    }
}

/// A raw command as its handler sees it: what a JSON `Command` carries, with headers and bytes for the payload.
public struct RawCommand: Sendable {
    public var type: String
    public var requestId: String
    public var identity: Identity
    public var headers: [String: String]
    public var body: [UInt8]
}

/// The headers raw commands and replies use besides their own.
enum RawHeaders {
    /// The caller's `Identity` as JSON (small, and decoded once per command).
    static let identity = "x-identity"
    /// `ok` on a raw command's success reply. A reply without it is a JSON `CommandReply` failure, as every
    /// route and the command server answer refusals, so one decoder reads them all.
    static let status = "x-status"
    static let ok = "ok"
}
