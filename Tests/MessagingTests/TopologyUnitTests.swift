import Testing
@testable import Messaging

@Suite struct TopologyUnitTests {
    @Test func commandAndDeadLetterQueuesAreDurableQuorumQueues() throws {
        let topology = Topology.commandQueues(["votes"], eventExchange: "parse.events", type: .quorum)
        let queue = try #require(topology.queues.first { $0.name == "votes" })
        let dead = try #require(topology.queues.first { $0.name == "votes.dead" })
        #expect(queue.arguments == ["x-queue-type": "quorum", "x-dead-letter-exchange": "",
                                    "x-dead-letter-routing-key": "votes.dead"])
        #expect(dead.arguments == ["x-queue-type": "quorum"])
        for declared in [queue, dead] { #expect(declared.durable && !declared.exclusive && !declared.autoDelete) }
    }

    @Test func onOneNodeCommandQueuesAreClassic() throws {
        let topology = Topology.commandQueues(["votes"], eventExchange: "parse.events", type: .classic)
        let queue = try #require(topology.queues.first { $0.name == "votes" })
        let dead = try #require(topology.queues.first { $0.name == "votes.dead" })
        #expect(queue.arguments == ["x-dead-letter-exchange": "", "x-dead-letter-routing-key": "votes.dead"])
        #expect(dead.arguments.isEmpty && dead.durable)
    }

    @Test func aPrivateEventQueueStaysClassic() throws {
        var topology = Topology()
        topology.addPrivateEventQueue("gateway.events.1", exchange: "parse.events", routingKeys: ["session.revoked"])
        let queue = try #require(topology.queues.first)
        #expect(queue.arguments["x-queue-type"] == nil)
        #expect(queue.exclusive && queue.autoDelete && !queue.durable)
    }
}
