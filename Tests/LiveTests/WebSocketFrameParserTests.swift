import Testing
@testable import LiveCore

/// A client frame as a browser sends it: masked with `mask`.
func clientFrame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, mask: [UInt8] = [0x37, 0xfa, 0x21, 0x3d],
                 rsv: UInt8 = 0) -> [UInt8] {
    var bytes: [UInt8] = [(fin ? 0x80 : 0) | rsv | opcode]
    if payload.count < 126 {
        bytes.append(0x80 | UInt8(payload.count))
    } else if payload.count <= 0xFFFF {
        bytes += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    } else {
        bytes.append(0x80 | 127)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
    }
    bytes += mask
    bytes += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    return bytes
}

struct WebSocketFrameParserTests {
    func parse(_ bytes: [UInt8], limit: Int = 1 << 20) throws(WebSocketProtocolError) -> [WebSocketMessage] {
        var parser = WebSocketFrameParser(maximumMessageSize: limit)
        parser.append(bytes)
        var messages: [WebSocketMessage] = []
        while let message = try parser.next() { messages.append(message) }
        return messages
    }

    @Test func unmasksATextFrame() throws {
        // RFC 6455 section 5.7: a masked "Hello".
        let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        #expect(try parse(bytes) == [.text("Hello")])
    }

    @Test func readsFramesSplitAtEveryByte() throws {
        let bytes = clientFrame(opcode: 1, Array("split anywhere".utf8)) + clientFrame(opcode: 9, [1, 2])
        var parser = WebSocketFrameParser(maximumMessageSize: 1024)
        var messages: [WebSocketMessage] = []
        for byte in bytes {
            parser.append([byte])
            while let message = try parser.next() { messages.append(message) }
        }
        #expect(messages == [.text("split anywhere"), .ping([1, 2])])
    }

    @Test func readsSixteenAndSixtyFourBitLengths() throws {
        let medium = [UInt8](repeating: 65, count: 300), large = [UInt8](repeating: 66, count: 70_000)
        #expect(try parse(clientFrame(opcode: 2, medium) + clientFrame(opcode: 2, large)) == [.binary(medium), .binary(large)])
    }

    @Test func joinsFragmentsWithControlFramesBetweenThem() throws {
        let bytes = clientFrame(opcode: 1, Array("Hel".utf8), fin: false) + clientFrame(opcode: 9, [])
            + clientFrame(opcode: 0, Array("lo".utf8))
        #expect(try parse(bytes) == [.ping([]), .text("Hello")])
    }

    @Test func readsCloseCodesAndReasons() throws {
        #expect(try parse(clientFrame(opcode: 8, [0x03, 0xE8] + Array("bye".utf8))) == [.close(code: 1000, reason: "bye")])
        #expect(try parse(clientFrame(opcode: 8, [])) == [.close(code: nil, reason: "")])
    }

    @Test(arguments: [
        (clientFrame(opcode: 1, [0x61], rsv: 0x40), WebSocketCloseCode.protocolError),
        (clientFrame(opcode: 3, [0x61]), .protocolError),
        (clientFrame(opcode: 9, [UInt8](repeating: 0, count: 126)), .protocolError),
        (clientFrame(opcode: 9, [], fin: false), .protocolError),
        (clientFrame(opcode: 0, [0x61]), .protocolError),
        (clientFrame(opcode: 1, [0x61], fin: false) + clientFrame(opcode: 1, [0x62]), .protocolError),
        (clientFrame(opcode: 1, [0xC3, 0x28]), .invalidPayload),
        (clientFrame(opcode: 8, [0x03]), .protocolError),
        (clientFrame(opcode: 8, [0x03, 0xED]), .protocolError),
        (clientFrame(opcode: 8, [0x03, 0xE8, 0xFF]), .invalidPayload),
    ])
    func refusesFramesThatBreakTheProtocol(bytes: [UInt8], code: WebSocketCloseCode) {
        #expect(throws: WebSocketProtocolError.self) { _ = try parse(bytes) }
        do { _ = try parse(bytes) } catch { #expect(error.code == code) }
    }

    @Test func unmaskedFramesAreRefused() {
        let unmasked: [UInt8] = [0x81, 0x01, 0x61]
        do {
            _ = try parse(unmasked)
            Issue.record("an unmasked client frame was accepted")
        } catch {
            #expect(error.code == .protocolError)
        }
    }

    @Test func refusesAMessageAboveTheLimitBeforeBufferingIt() {
        // Only the header of a 10 MB frame has arrived: the announced length alone is enough to refuse it.
        let header: [UInt8] = [0x82, 0x80 | 127, 0, 0, 0, 0, 0, 0xA0, 0, 0, 1, 2, 3, 4]
        do {
            _ = try parse(header, limit: 1 << 20)
            Issue.record("an oversized frame was accepted")
        } catch {
            #expect(error.code == .messageTooBig)
        }
        let fragments = clientFrame(opcode: 1, [UInt8](repeating: 97, count: 600), fin: false)
            + clientFrame(opcode: 0, [UInt8](repeating: 97, count: 600))
        do {
            _ = try parse(fragments, limit: 1_000)
            Issue.record("fragments above the limit were accepted")
        } catch {
            #expect(error.code == .messageTooBig)
        }
    }
}
