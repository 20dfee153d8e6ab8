/// A request's place in a distributed trace, as W3C Trace Context's `traceparent` carries it
/// (`00-<trace id: 32 hex>-<parent id: 16 hex>-<flags: 2 hex>`). The gateway takes the client's, or starts one;
/// every command a request causes carries a child of it (AMQP header `traceparent`), and every line logged while
/// handling it says `trace.id`, so one id follows a request through every process, and joins the client's trace.
public struct TraceContext: Sendable, Equatable {
    public static let header = "traceparent"

    /// The context of the work under way in this task: set by the gateway per request and by each service per
    /// command, read by the calls it makes.
    @TaskLocal public static var current: TraceContext?

    public let traceId: String
    /// This hop's own id: the parent of the hops it calls.
    public let spanId: String
    public let flags: String

    /// Parsed as the specification's version 00 says, and by its rule for later versions (the first four fields
    /// read the same way, what follows them ignored); nil for anything else, which starts a new trace instead.
    public init?(traceparent text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= 55, bytes.count == 55 || (bytes.count > 55 && bytes[55] == UInt8(ascii: "-")),
              bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-"),
              Self.isHex(bytes[0..<2]), Self.isHex(bytes[3..<35]), Self.isHex(bytes[36..<52]), Self.isHex(bytes[53..<55])
        else { return nil }
        let version = String(decoding: bytes[0..<2], as: UTF8.self)
        guard version != "ff", version != "00" || bytes.count == 55 else { return nil }
        let traceId = String(decoding: bytes[3..<35], as: UTF8.self)
        let parentId = String(decoding: bytes[36..<52], as: UTF8.self)
        guard traceId != String(repeating: "0", count: 32), parentId != String(repeating: "0", count: 16) else { return nil }
        self.init(traceId: traceId, spanId: parentId, flags: String(decoding: bytes[53..<55], as: UTF8.self))
    }

    init(traceId: String, spanId: String, flags: String) {
        self.traceId = traceId
        self.spanId = spanId
        self.flags = flags
    }

    /// A new trace, sampled flag off: this server records no spans, it only passes the ids on.
    public static func start() -> TraceContext {
        TraceContext(traceId: Hex.encode(RandomPool.bytes(16)), spanId: Hex.encode(RandomPool.bytes(8)), flags: "00")
    }

    /// The next hop of the same trace, with an id of its own.
    public func child() -> TraceContext {
        TraceContext(traceId: traceId, spanId: Hex.encode(RandomPool.bytes(8)), flags: flags)
    }

    /// Version 00 of the header, whatever version it was read from, as the specification asks.
    public var traceparent: String { "00-\(traceId)-\(spanId)-\(flags)" }

    /// Lowercase only: the specification refuses uppercase hex.
    private static func isHex(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
