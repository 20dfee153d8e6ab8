@testable import Messaging
import Testing

struct MessageBatchUnitTests {
    @Test func partsRoundTrip() throws {
        let parts = [
            MessageBatch.Part(correlationId: "c1", messageId: "m1", type: "rest.v1", headers: ["x-attempts": "2", "a": ""],
                              body: Array("{\"ünïcødé\":true}".utf8)),
            MessageBatch.Part(correlationId: nil, messageId: nil, type: nil, headers: [:], body: []),
            MessageBatch.Part(correlationId: "", messageId: "m3", type: "file.part.v1", headers: [:], body: (0...255).map(UInt8.init)),
        ]
        #expect(try MessageBatch.decode(MessageBatch.encode(parts)) == parts)
        #expect(try MessageBatch.decode(MessageBatch.encode([])) == [])
    }

    @Test func malformedBatchesAreRefused() {
        let valid = MessageBatch.encode([MessageBatch.Part(correlationId: "c", messageId: nil, type: "t", headers: ["h": "v"],
                                                           body: [1, 2, 3])])
        var inputs: [[UInt8]] = [[], Array("PMB2".utf8) + valid.dropFirst(4), valid + [0]]
        inputs += (0..<valid.count).map { Array(valid.prefix($0)) }   // every truncation
        var hugeCount = Array(valid.prefix(4))
        hugeCount += [0xff, 0xff, 0xff, 0xff]
        inputs.append(hugeCount)
        var badFlag = valid
        badFlag[8] = 7   // the correlation id's presence flag
        inputs.append(badFlag)
        for input in inputs {
            #expect(throws: MessageBatch.Malformed.self) { try MessageBatch.decode(input) }
        }
    }
}
