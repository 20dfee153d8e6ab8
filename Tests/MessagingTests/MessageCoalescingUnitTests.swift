import Testing
@testable import Messaging

@Suite struct MessageCoalescingUnitTests {
    private func message(_ queue: String, _ body: String = "{}", persistent: Bool = false) -> OutgoingMessage {
        OutgoingMessage(routingKey: queue, body: Array(body.utf8), replyTo: "amq.rabbitmq.reply-to", persistent: persistent)
    }

    private func published(_ operations: [ConnectionOperation]) -> [OutgoingMessage] {
        operations.compactMap { if case .publish(let message) = $0 { message } else { nil } }
    }

    @Test func smallMessagesForOneQueueLeaveAsOneBatch() {
        let out = MessageCoalescer().coalesced([.publish(message("posts")), .publish(message("posts")), .publish(message("votes"))])
        let messages = published(out)
        #expect(messages.count == 2)
        #expect(messages[0].routingKey == "posts" && messages[0].type == MessageBatch.type)
        #expect(messages[1].routingKey == "votes" && messages[1].type != MessageBatch.type)
    }

    @Test func settlementsGoBeforeTheBatchedReplies() {
        let out = MessageCoalescer().coalesced([.publish(message("r")), .ack(tag: 1, generation: 1), .publish(message("r"))])
        guard case .ack = out.first else {
            Issue.record("the ack did not go first: \(out.count) operations")
            return
        }
        #expect(published(out).count == 1)
    }

    @Test func persistentMessagesTravelAlone() {
        let out = MessageCoalescer().coalesced([.publish(message("e", persistent: true)), .publish(message("e", persistent: true))])
        #expect(published(out).count == 2)
        #expect(published(out).allSatisfy { $0.type != MessageBatch.type })
    }

    @Test func messagesUnsafeToRunTwiceTravelAloneAndSplitTheBatchesAroundThem() {
        var unsafe = message("q", "{\"create\":1}")
        unsafe.coalescible = false
        let out = MessageCoalescer().coalesced([.publish(message("q")), .publish(unsafe), .publish(message("q"))])
        let messages = published(out)
        #expect(messages.count == 3)
        #expect(messages.allSatisfy { $0.type != MessageBatch.type })
        #expect(messages[1].body == unsafe.body)
    }

    @Test func aBatchHoldsAtMostItsPartLimit() throws {
        let many = (0..<(MessageBatch.maximumParts + 1)).map { ConnectionOperation.publish(message("q", "{\"n\":\($0)}")) }
        let messages = published(MessageCoalescer().coalesced(many))
        #expect(messages.count == 2)
        #expect(try MessageBatch.decode(messages[0].body).count == MessageBatch.maximumParts)
        #expect(messages[1].type != MessageBatch.type)
    }

    @Test func unpackingGivesEachPartItsOwnFieldsAndTheBatchsTag() {
        let parts = [MessageBatch.Part(correlationId: "c1", messageId: "m1", type: "a", headers: ["h": "1"], body: [1]),
                     MessageBatch.Part(correlationId: "c2", messageId: nil, type: nil, headers: [:], body: [2, 3])]
        let batch = Delivery(body: MessageBatch.encode(parts), exchange: "", routingKey: "q", correlationId: nil,
                             replyTo: "r", messageId: nil, type: MessageBatch.type, headers: [:], redelivered: false,
                             tag: 7, generation: 2)
        let settlement = BatchSettlement(parts: 2, queue: "q")
        let unpacked = MessageBatch.unpack(batch, parts: parts, settlement: settlement)
        #expect(unpacked.map(\.correlationId) == ["c1", "c2"])
        #expect(unpacked.map(\.body) == [[1], [2, 3]])
        #expect(unpacked.map(\.headers) == [["h": "1"], [:]])
        #expect(unpacked.allSatisfy { $0.tag == 7 && $0.generation == 2 && $0.replyTo == "r" && $0.batch === settlement })
        #expect(!settlement.settlePart())
        #expect(settlement.settlePart())
    }
}
