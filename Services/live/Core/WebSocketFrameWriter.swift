/// Server frames (RFC 6455 section 5.2): whole, unmasked, as servers send them.
public enum WebSocketFrameWriter {
    public static func text(_ text: String) -> [UInt8] { frame(opcode: 1, Array(text.utf8)) }
    public static func ping(_ payload: [UInt8] = []) -> [UInt8] { frame(opcode: 9, payload) }
    public static func pong(_ payload: [UInt8]) -> [UInt8] { frame(opcode: 10, payload) }

    public static func close(_ code: WebSocketCloseCode, reason: String = "") -> [UInt8] {
        // A close frame's payload is at most 125 bytes: the code's two and the reason, cut on a character boundary.
        var reasonBytes = Array(reason.utf8.prefix(123))
        while String(validating: reasonBytes, as: UTF8.self) == nil { reasonBytes.removeLast() }
        return frame(opcode: 8, [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + reasonBytes)
    }

    public static func frame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var bytes = header(opcode: opcode, length: payload.count, reserving: payload.count)
        bytes += payload
        return bytes
    }

    /// A frame's head for a payload of `length` bytes, with room for `reserving` more: the caller appends the
    /// payload's parts, so a frame made of parts is one array.
    static func header(opcode: UInt8, length: Int, reserving: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | opcode]
        bytes.reserveCapacity(reserving + 10)
        if length < 126 {
            bytes.append(UInt8(length))
        } else if length <= 0xFFFF {
            bytes += [126, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            bytes.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: length >> shift)) }
        }
        return bytes
    }
}
