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

    /// Between two attempts to connect, the connection thread waits without taking operations: a job queued by
    /// another thread after the first wake-up must wake it again, not wait for the next attempt.
    @Test func aJobQueuedWhileTheThreadPausesWakesItEachTime() async {
        let mailbox = ConnectionMailbox()
        let executor = ConnectionExecutor(mailbox: mailbox)
        let first = Task(executorPreference: executor) { 1 }
        #expect(mailbox.isWakeSignalled)
        mailbox.sleep(milliseconds: 0)
        executor.runQueuedJobs()
        #expect(await first.value == 1)
        #expect(!mailbox.isWakeSignalled)
        let second = Task(executorPreference: executor) { 2 }
        #expect(mailbox.isWakeSignalled)
        mailbox.sleep(milliseconds: 0)
        executor.runQueuedJobs()
        #expect(await second.value == 2)
    }
}
