/// Several messages for one queue carried as one AMQP message. Under load a connection has many small
/// requests or replies for the same queue at once; sending them as one message lets the broker route, enqueue
/// and deliver once instead of once per message, and both ends write and wake up once per batch. The receiving
/// connection unpacks a batch before anyone sees it: consumers and callers only ever get ordinary deliveries.
///
/// Body layout (all integers big-endian): the magic `PMB1`, a UInt32 part count, then per part the optional
/// strings correlation id, message id and type (a UInt8 presence flag, then UInt32 length and UTF-8 bytes),
/// a UInt32 header count with each name and value as UInt32 length and bytes, and the body as UInt32 length and
/// bytes. The batch's own properties (reply-to, expiration, delivery mode) apply to every part.
enum MessageBatch {
    /// The AMQP `type` property that marks a batch.
    static let type = "batch.v1"
    static let contentType = "application/x-parse-message-batch"
    private static let magic: [UInt8] = Array("PMB1".utf8)

    /// At most this many messages go into one batch, so one delivery never holds a large share of a queue's
    /// prefetch window.
    static let maximumParts = 64
    /// Messages above this size travel alone: batching pays off for many small messages, not for big ones.
    static let maximumPartBytes = 64 * 1024

    struct Part: Sendable, Equatable {
        var correlationId: String?
        var messageId: String?
        var type: String?
        var headers: [String: String]
        var body: [UInt8]
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String { "malformed message batch" }
    }

    static func encode(_ parts: [Part]) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(parts.reduce(16) { $0 + $1.body.count + 64 })
        append(UInt32(parts.count), to: &bytes)
        for part in parts {
            append(optional: part.correlationId, to: &bytes)
            append(optional: part.messageId, to: &bytes)
            append(optional: part.type, to: &bytes)
            append(UInt32(part.headers.count), to: &bytes)
            for (name, value) in part.headers.sorted(by: { $0.key < $1.key }) {
                append(Array(name.utf8), to: &bytes)
                append(Array(value.utf8), to: &bytes)
            }
            append(part.body, to: &bytes)
        }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) throws(Malformed) -> [Part] {
        var reader = Reader(bytes: bytes)
        guard try reader.take(magic.count) == magic[...] else { throw Malformed() }
        let count = try reader.integer()
        guard count <= bytes.count else { throw Malformed() }   // every part takes at least one byte
        var parts: [Part] = []
        parts.reserveCapacity(count)
        for _ in 0..<count {
            let correlationId = try reader.optionalString()
            let messageId = try reader.optionalString()
            let type = try reader.optionalString()
            let headerCount = try reader.integer()
            guard headerCount <= bytes.count else { throw Malformed() }
            var headers: [String: String] = [:]
            for _ in 0..<headerCount {
                let name = try reader.string()
                headers[name] = try reader.string()
            }
            parts.append(Part(correlationId: correlationId, messageId: messageId, type: type, headers: headers,
                              body: Array(try reader.lengthPrefixed())))
        }
        guard reader.isAtEnd else { throw Malformed() }
        return parts
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    private static func append(_ data: [UInt8], to bytes: inout [UInt8]) {
        append(UInt32(data.count), to: &bytes)
        bytes += data
    }

    private static func append(optional text: String?, to bytes: inout [UInt8]) {
        guard let text else { bytes.append(0); return }
        bytes.append(1)
        append(Array(text.utf8), to: &bytes)
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func take(_ count: Int) throws(Malformed) -> ArraySlice<UInt8> {
            guard count >= 0, bytes.count - offset >= count else { throw Malformed() }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        mutating func integer() throws(Malformed) -> Int {
            try take(4).reduce(0) { $0 << 8 | Int($1) }
        }

        mutating func lengthPrefixed() throws(Malformed) -> ArraySlice<UInt8> {
            try take(try integer())
        }

        mutating func string() throws(Malformed) -> String {
            String(decoding: try lengthPrefixed(), as: UTF8.self)
        }

        mutating func optionalString() throws(Malformed) -> String? {
            switch try take(1).first {
            case 0: return nil
            case 1: return try string()
            default: throw Malformed()
            }
        }
    }
}
