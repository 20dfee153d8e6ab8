import Contracts
import Foundation
import ParseWire
import Runtime
import Synchronization
import Testing
@testable import Messaging

/// Against the real RabbitMQ of the test stack (`PARSE_TEST_AMQP_URL`), on queues of the tests' own.
enum TestBroker {
    static let url = ProcessInfo.processInfo.environment["PARSE_TEST_AMQP_URL"].flatMap { try? AMQPURL($0) }

    struct TimeoutReached: Error {}

    static func waitUntil(timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimeoutReached() }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

@Suite(.enabled(if: TestBroker.url != nil, "needs PARSE_TEST_AMQP_URL (set by `deploy/stack test`)"))
struct BrokerTests {
    static let url = TestBroker.url
    static let logger = Logger(service: "messaging-tests", level: .error)

    struct Echo: Codable, Sendable, Equatable { var text: String }

    private func uniqueQueue(_ name: String) -> String { "test.\(name).\(UUID().uuidString.prefix(8))" }

    private func connectedClient() async throws -> RPCClient {
        let client = RPCClient(url: try #require(Self.url), name: "test-client", eventExchange: "parse.events", logger: Self.logger)
        client.start()
        try await waitUntil { client.isConnected }
        return client
    }

    private func waitUntil(timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws {
        try await TestBroker.waitUntil(timeout: timeout, condition)
    }

    @Test func requestReplyCarriesPayloadIdentityAndRequestId() async throws {
        let queue = uniqueQueue("echo")
        var router = CommandRouter()
        router.register("echo.v1", Echo.self) { command, _ in
            Echo(text: "\(command.payload.text)|\(command.requestId)|\(command.identity.userId ?? "-")")
        }
        let server = CommandServer(service: .posts, queue: queue, url: try #require(Self.url), router: router, logger: Self.logger)
        server.start()
        let client = try await connectedClient()
        try await waitUntil { server.isConnected }

        let reply: Echo = try await client.send("echo.v1", Echo(text: "hi"), queue: queue, requestId: "req-1",
                                                identity: Identity(userId: "u1"), timeout: .seconds(5))
        #expect(reply == Echo(text: "hi|req-1|u1"))

        // Many calls in flight on one connection are matched to their own replies.
        let replies = try await withThrowingTaskGroup(of: (Int, Echo).self) { group in
            for index in 0..<200 {
                group.addTask {
                    (index, try await client.send("echo.v1", Echo(text: "\(index)"), queue: queue, requestId: "r\(index)",
                                                  identity: .anonymous, timeout: .seconds(10)))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(replies.count == 200)
        #expect(replies.allSatisfy { $0.value.text == "\($0.key)|r\($0.key)|-" })
        await server.drain(grace: .seconds(1))
        await client.stop()
    }

    @Test func parseErrorsTravelBackAndUnknownCommandsAreRefused() async throws {
        let queue = uniqueQueue("errors")
        var router = CommandRouter()
        router.register("fail.v1", Echo.self) { (_, _) async throws -> Echo in
            throw ParseError(.objectNotFound, "Object not found.")
        }
        let server = CommandServer(service: .auth, queue: queue, url: try #require(Self.url), router: router, logger: Self.logger)
        server.start()
        let client = try await connectedClient()
        try await waitUntil { server.isConnected }

        await #expect(throws: ParseError(.objectNotFound, "Object not found.")) {
            let _: Echo = try await client.send("fail.v1", Echo(text: ""), queue: queue, requestId: "a",
                                                identity: .anonymous, timeout: .seconds(5))
        }
        do {
            let _: Echo = try await client.send("nope.v1", Echo(text: ""), queue: queue, requestId: "b",
                                                identity: .anonymous, timeout: .seconds(5))
            Issue.record("an unknown command must be refused")
        } catch let error as ParseError {
            #expect(error.code == .commandUnavailable)
        }
        await server.drain(grace: .seconds(1))
        await client.stop()
    }

    @Test func callToQueueWithoutConsumerTimesOut() async throws {
        let client = try await connectedClient()
        let queue = uniqueQueue("silent")
        // Declare the queue so the request has somewhere to wait.
        let holder = AMQPConnection(url: try #require(Self.url),
                                    options: .init(name: "holder", topology: Topology.commandQueues([queue], eventExchange: "parse.events")),
                                    logger: Self.logger)
        holder.start()
        try await waitUntil { holder.isConnected }
        let started = ContinuousClock.now
        await #expect(throws: MessagingError.timeout(queue: queue, milliseconds: 300)) {
            let _: Echo = try await client.send("echo.v1", Echo(text: ""), queue: queue, requestId: "t",
                                                identity: .anonymous, timeout: .milliseconds(300))
        }
        #expect(ContinuousClock.now - started < .seconds(3))
        await holder.stop()
        await client.stop()
    }

    @Test func failingCommandIsRetriedThenDeadLettered() async throws {
        let queue = uniqueQueue("poison")
        let attempts = Atomic<Int>(0)
        var router = CommandRouter()
        router.register("poison.v1", Echo.self) { (_, _) async throws -> Echo in
            attempts.add(1, ordering: .relaxed)
            throw CocoaError(.fileNoSuchFile)   // not a ParseError: the command could not be handled
        }
        let server = CommandServer(service: .votes, queue: queue, url: try #require(Self.url), router: router,
                                   options: .init(maxAttempts: 3), logger: Self.logger)
        server.start()
        let client = try await connectedClient()
        try await waitUntil { server.isConnected }

        do {
            let _: Echo = try await client.send("poison.v1", Echo(text: "x"), queue: queue, requestId: "p",
                                                identity: .anonymous, timeout: .seconds(10))
            Issue.record("a command that always fails must not succeed")
        } catch let error as ParseError {
            #expect(error.code == .internalServerError)
        }
        #expect(attempts.load(ordering: .relaxed) == 3)

        // The message is kept in the dead-letter queue, not lost.
        let deadLetters = Mutex<[Delivery]>([])
        let inspector = AMQPConnection(
            url: try #require(Self.url),
            options: .init(name: "inspector", consumers: [.init(queue: Topology.deadLetterQueue(of: queue)) { delivery in
                deadLetters.withLock { $0.append(delivery) }
            }]),
            logger: Self.logger)
        inspector.start()
        try await waitUntil { deadLetters.withLock { !$0.isEmpty } }
        let kept = try #require(deadLetters.withLock { $0.first })
        #expect(kept.type == "poison.v1")
        #expect(kept.messageId == "p")
        inspector.ack(kept)
        await inspector.stop()
        await server.drain(grace: .seconds(1))
        await client.stop()
    }

    /// Calls made together travel as batches; every part is answered, settled once, and a failing part alone is
    /// dead-lettered, while the batch it came in is acknowledged.
    @Test func batchedCommandsAreSettledPartByPart() async throws {
        let queue = uniqueQueue("batched")
        var router = CommandRouter()
        router.register("mixed.v1", Echo.self) { command, _ in
            if command.payload.text.hasPrefix("bad") { throw CocoaError(.fileNoSuchFile) }
            return Echo(text: command.payload.text.uppercased())
        }
        let server = CommandServer(service: .posts, queue: queue, url: try #require(Self.url), router: router,
                                   options: .init(maxAttempts: 1), logger: Self.logger)
        server.start()
        let client = try await connectedClient()
        try await waitUntil { server.isConnected }

        let outcomes = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for index in 0..<200 {
                let text = index.isMultiple(of: 4) ? "bad\(index)" : "ok\(index)"
                group.addTask {
                    do {
                        let reply: Echo = try await client.send("mixed.v1", Echo(text: text), queue: queue, requestId: text,
                                                                identity: .anonymous, timeout: .seconds(10))
                        return (text, reply.text)
                    } catch let error as ParseError {
                        return (text, "error \(error.code.rawValue)")
                    }
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes.count == 200)
        for (text, outcome) in outcomes {
            #expect(outcome == (text.hasPrefix("bad") ? "error 1" : text.uppercased()))
        }
        #expect(server.receivedBatches > 0)

        // Exactly the 50 failing parts are in the dead-letter queue.
        let deadLetters = Mutex<[Delivery]>([])
        let inspector = AMQPConnection(
            url: try #require(Self.url),
            options: .init(name: "inspector", consumers: [.init(queue: Topology.deadLetterQueue(of: queue), autoAck: true) { delivery in
                deadLetters.withLock { $0.append(delivery) }
            }]),
            logger: Self.logger)
        inspector.start()
        try await waitUntil { deadLetters.withLock { $0.count >= 50 } }
        try await Task.sleep(for: .milliseconds(300))
        let kept = deadLetters.withLock { $0.compactMap(\.messageId) }
        #expect(kept.count == 50)
        #expect(kept.allSatisfy { $0.hasPrefix("bad") })
        await inspector.stop()

        // Nothing was left unacknowledged: after the server disconnects, no message comes back to the queue.
        await server.drain(grace: .seconds(1))
        let leftovers = Atomic<Int>(0)
        let reader = AMQPConnection(
            url: try #require(Self.url),
            options: .init(name: "reader", consumers: [.init(queue: queue, autoAck: true) { _ in leftovers.add(1, ordering: .relaxed) }]),
            logger: Self.logger)
        reader.start()
        try await waitUntil { reader.isConnected }
        try await Task.sleep(for: .milliseconds(500))
        #expect(leftovers.load(ordering: .relaxed) == 0)
        await reader.stop()
        await client.stop()
    }

    /// Commands marked unsafe to run twice never share a batch: a crash must not re-run them with their siblings.
    @Test func commandsUnsafeToRunTwiceTravelAlone() async throws {
        let queue = uniqueQueue("alone")
        var router = CommandRouter()
        router.register("echo.v1", Echo.self) { command, _ in command.payload }
        let server = CommandServer(service: .posts, queue: queue, url: try #require(Self.url), router: router,
                                   logger: Self.logger)
        server.start()
        let client = try await connectedClient()
        try await waitUntil { server.isConnected }

        let replies = try await withThrowingTaskGroup(of: Echo.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await client.send("echo.v1", Echo(text: "\(index)"), queue: queue, requestId: "w\(index)",
                                          identity: .anonymous, timeout: .seconds(10), safeToRunTwice: false)
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1.text) }
        }
        #expect(replies == Set((0..<200).map(String.init)))
        #expect(server.receivedBatches == 0)
        await server.drain(grace: .seconds(1))
        await client.stop()
    }

    @Test func confirmedEventsReachABoundQueue() async throws {
        let exchange = "parse.events"
        let queue = uniqueQueue("events")
        let key = "vote.cast.\(UUID().uuidString.prefix(6))"
        var topology = Topology()
        topology.addEventExchange(exchange)
        topology.queues.append(.init(name: queue, arguments: [:]))
        topology.bindings.append(.init(queue: queue, exchange: exchange, routingKey: key))
        let received = Mutex<[Delivery]>([])
        let consumer = AMQPConnection(
            url: try #require(Self.url),
            options: .init(name: "event-consumer", topology: topology, consumers: [.init(queue: queue) { delivery in
                received.withLock { $0.append(delivery) }
            }], prefetch: 100),   // all 50 unacknowledged at once: more than the default prefetch
            logger: Self.logger)
        consumer.start()
        try await waitUntil { consumer.isConnected }

        let publisher = EventPublisher(url: try #require(Self.url), name: "test-publisher", exchange: exchange, logger: Self.logger)
        publisher.start()
        try await waitUntil { publisher.isConnected }
        let events = (1...50).map { index in
            (routingKey: key, event: CloudEvent(id: UUID().uuidString, source: "/parse/votes", type: "vote.cast.v1",
                                                time: ParseDate.string(from: Date()), subject: "Cat/x",
                                                data: Echo(text: "\(index)")))
        }
        try await publisher.publish(events)
        try await waitUntil { received.withLock { $0.count } == 50 }
        let deliveries = received.withLock { $0 }
        #expect(Set(deliveries.compactMap(\.messageId)) == Set(events.map(\.event.id)))
        #expect(deliveries.allSatisfy { $0.type == "vote.cast.v1" })
        deliveries.forEach { consumer.ack($0) }
        await publisher.stop()
        await consumer.stop()
    }

    @Test func callsFailFastWhenTheBrokerIsUnreachable() async throws {
        let client = RPCClient(url: try AMQPURL("amqp://guest:guest@127.0.0.1:1/"), name: "nowhere",
                               eventExchange: "parse.events", logger: Self.logger)
        client.start()
        let started = ContinuousClock.now
        await #expect(throws: MessagingError.unavailable) {
            let _: Echo = try await client.send("echo.v1", Echo(text: ""), queue: "nowhere", requestId: "n",
                                                identity: .anonymous, timeout: .seconds(5))
        }
        #expect(ContinuousClock.now - started < .seconds(1))
        await client.stop()
    }
}
