/// One client socket as the loop thread sees it: the handshake bytes until the upgrade, then the frame parser, and
/// the bytes queued for it, bounded.
final class SocketConnection {
    enum State { case handshaking, open, closing }

    let id: UInt64
    let fd: Int32
    var state = State.handshaking
    var handshakeBytes: [UInt8] = []
    var parser: WebSocketFrameParser
    var outbound: [UInt8] = []
    var outboundStart = 0
    var wantsWritable = false
    var awaitingPong = false
    var closeDeadline: ContinuousClock.Instant?

    init(id: UInt64, fd: Int32, maximumMessageSize: Int) {
        self.id = id
        self.fd = fd
        parser = WebSocketFrameParser(maximumMessageSize: maximumMessageSize)
    }

    var pendingBytes: Int { outbound.count - outboundStart }

    func queue(_ bytes: [UInt8]) {
        // Nothing waiting (the usual case): the frame itself becomes the buffer, not a copy of it.
        if outboundStart == outbound.count {
            outbound = bytes
            outboundStart = 0
            return
        }
        if outboundStart > 1 << 16 && outboundStart * 2 > outbound.count {
            outbound.removeFirst(outboundStart)
            outboundStart = 0
        }
        outbound += bytes
    }
}
