import Testing
@testable import LiveCore

struct WebSocketFrameWriterTests {
    @Test func writesUnmaskedFramesWithTheShortestLength() {
        #expect(WebSocketFrameWriter.text("Hello") == [0x81, 0x05] + Array("Hello".utf8))
        let medium = WebSocketFrameWriter.frame(opcode: 2, [UInt8](repeating: 0, count: 126))
        #expect(Array(medium.prefix(4)) == [0x82, 126, 0, 126])
        let large = WebSocketFrameWriter.frame(opcode: 2, [UInt8](repeating: 0, count: 65_536))
        #expect(Array(large.prefix(10)) == [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0])
        #expect(large.count == 65_546)
    }

    @Test func closeFramesCarryTheCodeAndAReasonCutToFit() {
        #expect(WebSocketFrameWriter.close(.tryAgainLater, reason: "slow") == [0x88, 6, 0x03, 0xF5] + Array("slow".utf8))
        let long = WebSocketFrameWriter.close(.normal, reason: String(repeating: "é", count: 100))
        #expect(long[1] <= 125)
        #expect(String(validating: long[4...], as: UTF8.self) != nil)
    }

    @Test func whatTheWriterWritesTheParserReadsOnceMasked() throws {
        // Server frames are unmasked; mask one as a client would and read it back.
        let payload = Array("round trip ✓".utf8)
        var parser = WebSocketFrameParser(maximumMessageSize: 1024)
        parser.append(clientFrame(opcode: 1, payload))
        #expect(try parser.next() == .text("round trip ✓"))
        #expect(WebSocketFrameWriter.text("round trip ✓").suffix(payload.count) == payload[...])
    }
}
