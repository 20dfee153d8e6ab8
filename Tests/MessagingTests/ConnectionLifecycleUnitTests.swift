import Testing
@testable import Messaging

@Suite struct ConnectionLifecycleUnitTests {
    @Test func eachAttemptHasANewGeneration() {
        var lifecycle = ConnectionLifecycle(nodes: 1)
        #expect(lifecycle.attempt().generation == 1)
        _ = lifecycle.connectFailed()
        #expect(lifecycle.attempt().generation == 2)
        lifecycle.connected()
        lifecycle.connectionLost()
        #expect(lifecycle.attempt().generation == 3)
    }

    @Test func theBackoffDoublesToTwoSecondsAndAConnectionResetsIt() {
        var lifecycle = ConnectionLifecycle(nodes: 1)
        var pauses: [Double] = []
        for _ in 0..<7 {
            _ = lifecycle.attempt()
            pauses.append(lifecycle.connectFailed() ?? -1)
        }
        #expect(pauses == [0.1, 0.2, 0.4, 0.8, 1.6, 2, 2])
        lifecycle.connected()
        #expect(lifecycle.isConnected)
        _ = lifecycle.attempt()
        #expect(lifecycle.connectFailed() == 0.1)
    }

    @Test func onAClusterEveryNodeIsTriedBeforeAPause() {
        var lifecycle = ConnectionLifecycle(nodes: 3)
        #expect(lifecycle.attempt().node == 0)
        #expect(lifecycle.connectFailed() == nil)
        #expect(lifecycle.attempt().node == 1)
        #expect(lifecycle.connectFailed() == nil)
        #expect(lifecycle.attempt().node == 2)
        #expect(lifecycle.connectFailed() == 0.1)
        #expect(lifecycle.attempt().node == 0)
    }

    @Test func aLostConnectionMovesToTheNextNodeWithoutAPause() {
        var lifecycle = ConnectionLifecycle(nodes: 2)
        _ = lifecycle.attempt()
        lifecycle.connected()
        #expect(lifecycle.connections == 1)
        lifecycle.connectionLost()
        #expect(!lifecycle.isConnected)
        #expect(lifecycle.attempt().node == 1)
        lifecycle.connected()
        #expect(lifecycle.connections == 2)
    }

    @Test func onlyTheFirstAndTheLongestFailuresOfOneNodeAreLogged() {
        var lifecycle = ConnectionLifecycle(nodes: 1)
        var logged: [Bool] = []
        for _ in 0..<7 {
            _ = lifecycle.attempt()
            logged.append(lifecycle.failureIsWorthLogging)
            _ = lifecycle.connectFailed()
        }
        #expect(logged == [true, false, false, false, false, true, true])
    }
}

@Suite struct MessageCoalescingUnitTests {
    private func message(_ queue: String, _ body: String = "{}", persistent: Bool = false) -> OutgoingMessage {
        OutgoingMessage(routingKey: queue, body: Array(body.utf8), replyTo: "amq.rabbitmq.reply-to", persistent: persistent)
    }

    private func published(_ operations: [AMQPConnection.Operation]) -> [OutgoingMessage] {
        operations.compactMap { if case .publish(let message) = $0 { message } else { nil } }
    }

    @Test func smallMessagesForOneQueueLeaveAsOneBatch() {
        let out = AMQPConnection.coalesced([.publish(message("posts")), .publish(message("posts")), .publish(message("votes"))])
        let messages = published(out)
        #expect(messages.count == 2)
        #expect(messages[0].routingKey == "posts" && messages[0].type == MessageBatch.type)
        #expect(messages[1].routingKey == "votes" && messages[1].type != MessageBatch.type)
    }

    @Test func settlementsGoBeforeTheBatchedReplies() {
        let out = AMQPConnection.coalesced([.publish(message("r")), .ack(tag: 1, generation: 1), .publish(message("r"))])
        guard case .ack = out.first else {
            Issue.record("the ack did not go first: \(out.count) operations")
            return
        }
        #expect(published(out).count == 1)
    }

    @Test func persistentMessagesTravelAlone() {
        let out = AMQPConnection.coalesced([.publish(message("e", persistent: true)), .publish(message("e", persistent: true))])
        #expect(published(out).count == 2)
        #expect(published(out).allSatisfy { $0.type != MessageBatch.type })
    }
}
