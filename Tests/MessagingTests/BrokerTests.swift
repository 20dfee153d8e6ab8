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

    struct Flaky: ClassifiedFailure {
        var failureKind: FailureKind { .transient }
    }

    /// The messages that reach `queue`'s dead-letter queue: once `expected` have come (or `timeout` passed), and
    /// any that come a moment later.
    private func deadLetters(of queue: String, waitingFor expected: Int,
                             timeout: Duration = .seconds(10)) async throws -> [Delivery] {
        let kept = Mutex<[Delivery]>([])
        let inspector = AMQPConnection(
            url: try #require(Self.url),
            options: .init(name: "inspector", consumers: [.init(queue: Topology.deadLetterQueue(of: queue), autoAck: true) { delivery in
                kept.withLock { $0.append(delivery) }
            }]),
            logger: Self.logger)
        inspector.start()
        try await waitUntil { inspector.isConnected }
        if expected > 0 { try? await waitUntil(timeout: timeout) { kept.withLock { $0.count >= expected } } }
        try await Task.sleep(for: .milliseconds(300))
        await inspector.stop()
        return kept.withLock { $0 }
    }

    /// A failure that would happen again (not a Parse error, not transient) is answered at once with code 1 and
    /// never retried or dead-lettered: the client learns of it now, and the queue does not fill with it.
    @Test func aDeterministicFailureIsAnsweredOnceAndNotDeadLettered() async throws {
        let queue = uniqueQueue("bug")
        let attempts = Atomic<Int>(0)
        var router = CommandRouter()
        router.register("bug.v1", Echo.self) { (_, _) async throws -> Echo in
            attempts.add(1, ordering: .relaxed)
            throw CocoaError(.fileNoSuchFile)
        }
        let server = CommandServer(service: .votes, queue: queue, url: try #require(Self.url), router: router,
                                   options: .init(maxAttempts: 3), logger: Self.logger)
        server.start()
        let client = try await connectedClient()
        try await waitUntil { server.isConnected }

        await #expect(throws: ParseError.internalError) {
            let _: Echo = try await client.send("bug.v1", Echo(text: "x"), queue: queue, requestId: "b",
                                                identity: .anonymous, timeout: .seconds(10))
        }
        #expect(attempts.load(ordering: .relaxed) == 1)
        #expect(try await deadLetters(of: queue, waitingFor: 0).isEmpty)
        await server.drain(grace: .seconds(1))
        await client.stop()
    }

    /// A transient failure (a database restarting) is run again where it is, while the caller waits: the caller
    /// gets the answer of the try that succeeded, or 100 ("Service unavailable") when its deadline comes first.
    @Test func transientFailuresAreRetriedWhileTheCallerWaits() async throws {
        let queue = uniqueQueue("flaky")
        let attempts = Mutex<[String: Int]>([:])
        var router = CommandRouter()
        router.register("flaky.v1", Echo.self) { command, _ in
            let attempt = attempts.withLock { counts in
                counts[command.requestId, default: 0] += 1
                return counts[command.requestId] ?? 0
            }
            if command.payload.text == "never" || attempt < 3 { throw Flaky() }
            return Echo(text: "after \(attempt)")
        }
        let server = CommandServer(service: .posts, queue: queue, url: try #require(Self.url), router: router,
                                   options: .init(maxAttempts: 1), logger: Self.logger)
        server.start()
        let client = try await connectedClient()
        try await waitUntil { server.isConnected }

        let reply: Echo = try await client.send("flaky.v1", Echo(text: "soon"), queue: queue, requestId: "soon",
                                                identity: .anonymous, timeout: .seconds(10))
        #expect(reply == Echo(text: "after 3"))

        do {
            let _: Echo = try await client.send("flaky.v1", Echo(text: "never"), queue: queue, requestId: "never",
                                                identity: .anonymous, timeout: .seconds(2))
            Issue.record("a command that never gets past its transient failure must not succeed")
        } catch let error as ParseError {
            #expect(error.code == .connectionFailed)
        }
        #expect(attempts.withLock { $0["never"] ?? 0 } > 1)
        #expect(try await deadLetters(of: queue, waitingFor: 0).isEmpty)
        await server.drain(grace: .seconds(1))
        await client.stop()
    }

    /// A command nobody waits for (an operator requeued it, without a reply address) that keeps meeting transient
    /// failures goes back to its queue, then to the dead-letter queue after `maxAttempts`: kept, not lost.
    @Test func aCommandWithoutCallerThatKeepsFailingIsKeptInTheDeadLetterQueue() async throws {
        let queue = uniqueQueue("orphan")
        let attempts = Atomic<Int>(0)
        var router = CommandRouter()
        router.register("orphan.v1", Echo.self) { (_, _) async throws -> Echo in
            attempts.add(1, ordering: .relaxed)
            throw Flaky()
        }
        let server = CommandServer(service: .votes, queue: queue, url: try #require(Self.url), router: router,
                                   options: .init(maxAttempts: 2, retryBudgetWithoutDeadline: .milliseconds(300)),
                                   logger: Self.logger)
        server.start()
        try await waitUntil { server.isConnected }
        let publisher = AMQPConnection(url: try #require(Self.url), options: .init(name: "publisher"), logger: Self.logger)
        publisher.start()
        try await waitUntil { publisher.isConnected }
        let command = Command(type: "orphan.v1", requestId: "o", identity: .anonymous, payload: Echo(text: "x"))
        // Its first caller's deadline passed long ago: without a reply address nobody waits, and it still runs.
        publisher.publish(OutgoingMessage(routingKey: queue, body: try JSONCoding.encode(command), messageId: "o",
                                          type: "orphan.v1", persistent: true,
                                          headers: CommandDeadline.headers(timeoutMilliseconds: -60_000)))

        let kept = try await deadLetters(of: queue, waitingFor: 1)
        #expect(kept.map(\.messageId) == ["o"])
        #expect(kept.first?.type == "orphan.v1")
        #expect(attempts.load(ordering: .relaxed) >= 2)
        await publisher.stop()
        await server.drain(grace: .seconds(1))
    }

    /// Calls made together travel as batches; every part is answered and settled once, a failing part as much as
    /// the others, and the batch it came in is acknowledged.
    @Test func batchedCommandsAreSettledPartByPart() async throws {
        let queue = uniqueQueue("batched")
        var router = CommandRouter()
        router.register("mixed.v1", Echo.self) { command, _ in
            if command.payload.text.hasPrefix("bad") { throw CocoaError(.fileNoSuchFile) }  // answered code 1 at once
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

        #expect(try await deadLetters(of: queue, waitingFor: 0).isEmpty)

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
