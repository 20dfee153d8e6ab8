import Foundation
import Runtime
import Testing
@testable import Messaging

/// Quorum command queues and the list of broker nodes, against the test stack's RabbitMQ.
@Suite(.enabled(if: TestBroker.url != nil, "needs PARSE_TEST_AMQP_URL (set by `deploy/stack test`)"))
struct BrokerFailoverTests {
    static let logger = Logger(service: "messaging-tests", level: .error)

    @Test func theBrokerKeepsACommandQueueAQuorumQueue() throws {
        let url = try #require(TestBroker.url)
        let name = "test.quorum.\(UUID().uuidString.prefix(8))"
        let session = try AMQPSession(url: url, generation: 1)
        try session.declare(Topology.commandQueues([name], eventExchange: "parse.events", type: .quorum))
        // Declaring it again the same way is accepted; as a classic queue the broker refuses it (406), which is
        // what it would answer a process that declared its queues differently.
        try session.declare(Topology.commandQueues([name], eventExchange: "parse.events", type: .quorum))
        var classic = Topology()
        classic.queues.append(.init(name: name, arguments: [
            "x-dead-letter-exchange": "", "x-dead-letter-routing-key": Topology.deadLetterQueue(of: name),
        ]))
        #expect(throws: AMQPSession.Failure.self) { try session.declare(classic) }
        session.abandon()
    }

    @Test func aConnectionSkipsANodeThatCannotBeReached() async throws {
        let live = try #require(TestBroker.url)
        // Port 1 on loopback refuses at once: the first node of the list is down.
        let url = try AMQPURL("amqp://guest:guest@127.0.0.1:1/,\(ProcessInfo.processInfo.environment["PARSE_TEST_AMQP_URL"] ?? "")")
        #expect(url.nodes.count == live.nodes.count + 1 && url.nodes[1] == live.nodes[0])
        let client = RPCClient(url: url, name: "failover-client", eventExchange: "parse.events", logger: Self.logger)
        client.start()
        try await TestBroker.waitUntil { client.isConnected }
        await client.stop()
    }
}
