import Testing
@testable import Messaging

@Suite struct ConnectionMailboxUnitTests {
    private func describe(_ operations: [ConnectionOperation]) -> [String] {
        operations.map { operation in
            switch operation {
            case .ack(let tag, _): "ack \(tag)"
            case .publish(let message): "publish \(message.routingKey)"
            default: "other"
            }
        }
    }

    @Test func anAckAndItsReplyAreTakenTogetherInThatOrder() {
        let mailbox = ConnectionMailbox()
        mailbox.enqueue(.ack(tag: 7, generation: 1), then: .publish(OutgoingMessage(routingKey: "reply", body: [])))
        mailbox.enqueue(.publish(OutgoingMessage(routingKey: "later", body: [])))
        #expect(describe(mailbox.take()) == ["ack 7", "publish reply", "publish later"])
        #expect(mailbox.take().isEmpty)
    }
}
