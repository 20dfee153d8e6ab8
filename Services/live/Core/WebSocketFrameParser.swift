/// Reads client frames (RFC 6455 section 5) from a byte stream as it arrives, in any split. Client frames must be
/// masked; extensions are never negotiated, so reserved bits must be clear; control frames are short and whole;
/// fragments of one message are joined; text must be UTF-8; a message above `maximumMessageSize` is refused
/// before its bytes are buffered.
public struct WebSocketFrameParser: Sendable {
    public let maximumMessageSize: Int
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var fragments: [UInt8] = []
    private var fragmentedOpcode: UInt8?

    public init(maximumMessageSize: Int) {
        self.maximumMessageSize = maximumMessageSize
    }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if readIndex > 0 && readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex > 65_536 {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message, nil when more bytes are needed.
    public mutating func next() throws(WebSocketProtocolError) -> WebSocketMessage? {
        while true {
            guard let frame = try nextFrame() else { return nil }
            if let message = try assemble(frame) { return message }
        }
    }

    private struct Frame {
        var fin: Bool
        var opcode: UInt8
        var payload: [UInt8]
    }

    private mutating func nextFrame() throws(WebSocketProtocolError) -> Frame? {
        let available = buffer.count - readIndex
        guard available >= 2 else { return nil }
        let first = buffer[readIndex], second = buffer[readIndex + 1]
        let fin = first & 0x80 != 0
        let opcode = first & 0x0F
        guard first & 0x70 == 0 else { throw WebSocketProtocolError(.protocolError, "Reserved bits set without an extension") }
        guard [0, 1, 2, 8, 9, 10].contains(opcode) else { throw WebSocketProtocolError(.protocolError, "Unknown opcode \(opcode)") }
        guard second & 0x80 != 0 else { throw WebSocketProtocolError(.protocolError, "Client frames must be masked") }
        let isControl = opcode >= 8
        var length = UInt64(second & 0x7F)
        var headerLength = 2
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[readIndex + 2]) << 8 | UInt64(buffer[readIndex + 3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 2..<10 { length = length << 8 | UInt64(buffer[readIndex + index]) }
            guard length >> 63 == 0 else { throw WebSocketProtocolError(.protocolError, "Invalid payload length") }
            headerLength = 10
        }
        if isControl {
            guard fin else { throw WebSocketProtocolError(.protocolError, "Fragmented control frame") }
            guard length <= 125 else { throw WebSocketProtocolError(.protocolError, "Control frame payload above 125 bytes") }
        }
        let pending = opcode == 0 || !isControl ? UInt64(fragments.count) : 0
        guard length + pending <= UInt64(maximumMessageSize) else {
            throw WebSocketProtocolError(.messageTooBig, "Message above \(maximumMessageSize) bytes")
        }
        let total = headerLength + 4 + Int(length)
        guard available >= total else { return nil }
        let maskStart = readIndex + headerLength
        let mask = (buffer[maskStart], buffer[maskStart + 1], buffer[maskStart + 2], buffer[maskStart + 3])
        var payload = [UInt8](repeating: 0, count: Int(length))
        let payloadStart = maskStart + 4
        for index in 0..<Int(length) {
            let key: UInt8
            switch index & 3 {
            case 0: key = mask.0
            case 1: key = mask.1
            case 2: key = mask.2
            default: key = mask.3
            }
            payload[index] = buffer[payloadStart + index] ^ key
        }
        readIndex += total
        return Frame(fin: fin, opcode: opcode, payload: payload)
    }

    private mutating func assemble(_ frame: Frame) throws(WebSocketProtocolError) -> WebSocketMessage? {
        switch frame.opcode {
        case 8: return try Self.close(frame.payload)
        case 9: return .ping(frame.payload)
        case 10: return .pong(frame.payload)
        case 0:
            guard let opcode = fragmentedOpcode else {
                throw WebSocketProtocolError(.protocolError, "Continuation frame without a message to continue")
            }
            fragments += frame.payload
            guard frame.fin else { return nil }
            let payload = fragments
            fragments = []
            fragmentedOpcode = nil
            return try Self.message(opcode, payload)
        default:
            guard fragmentedOpcode == nil else {
                throw WebSocketProtocolError(.protocolError, "New message before the previous one ended")
            }
            guard frame.fin else {
                fragmentedOpcode = frame.opcode
                fragments = frame.payload
                return nil
            }
            return try Self.message(frame.opcode, frame.payload)
        }
    }

    private static func message(_ opcode: UInt8, _ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketMessage {
        guard opcode == 1 else { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw WebSocketProtocolError(.invalidPayload, "Text message is not valid UTF-8")
        }
        return .text(text)
    }

    private static func close(_ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketMessage {
        if payload.isEmpty { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { throw WebSocketProtocolError(.protocolError, "Close frame with a 1-byte payload") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard WebSocketCloseCode.isValidOnWire(code) else {
            throw WebSocketProtocolError(.protocolError, "Invalid close code \(code)")
        }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            throw WebSocketProtocolError(.invalidPayload, "Close reason is not valid UTF-8")
        }
        return .close(code: code, reason: reason)
    }
}
