import Contracts
import Foundation
import ParseWire
import Runtime
import Synchronization
import Testing
@testable import Messaging

/// Counting, listing, requeueing and purging `<queue>.dead` against the test stack's RabbitMQ.
@Suite(.enabled(if: TestBroker.url != nil, "needs PARSE_TEST_AMQP_URL (set by `deploy/stack test`)"))
struct DeadLetterQueuesTests {
    struct Echo: Codable, Sendable, Equatable { var text: String }

    static let logger = Logger(service: "messaging-tests", level: .error)

    /// The calls block their thread, so they run on a dispatch thread as the gateway runs them.
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    struct Unavailable: ClassifiedFailure { var failureKind: FailureKind { .transient } }

    @Test func deadLettersAreCountedListedRequeuedAndPurged() async throws {
        let url = try #require(TestBroker.url)
        let queue = "test.dead.\(UUID().uuidString.prefix(8))"
        let healthy = Atomic<Bool>(false)
        let handled = Atomic<Int>(0)
        var router = CommandRouter()
        router.register("flaky.v1", Echo.self) { command, _ in
            guard healthy.load(ordering: .relaxed) else { throw Unavailable() }
            handled.add(1, ordering: .relaxed)
            return command.payload
        }
        let server = CommandServer(service: .votes, queue: queue, url: url, router: router,
                                   options: .init(maxAttempts: 2, retryBudgetWithoutDeadline: .milliseconds(200)),
                                   logger: Self.logger)
        server.start()
        let publisher = AMQPConnection(url: url, options: .init(name: "publisher"), logger: Self.logger)
        publisher.start()
        try await TestBroker.waitUntil { publisher.isConnected && server.isConnected }
        let letters = DeadLetterQueues(url: url)
        // A command nobody waits for (as `requeue` sends them) that meets only transient failures.
        func publish(_ text: String, requestId: String) throws {
            let command = Command(type: "flaky.v1", requestId: requestId, identity: .anonymous, payload: Echo(text: text))
            publisher.publish(OutgoingMessage(routingKey: queue, body: try JSONCoding.encode(command), messageId: requestId,
                                              type: "flaky.v1", persistent: true))
        }

        // Sent back to its queue once, then kept in the dead-letter queue.
        try publish("x", requestId: "dead-1")
        try await TestBroker.waitUntil(timeout: .seconds(20)) { ((try? letters.counts([queue]))?[queue] ?? 0) == 1 }

        let listed = try await blocking { try letters.list(queue, limit: 10) }
        #expect(listed.count == 1)
        #expect(listed.first?.type == "flaky.v1")
        #expect(listed.first?.messageId == "dead-1")
        #expect(listed.first?.reason == "rejected")
        #expect(listed.first?.fromQueue == queue)
        #expect(listed.first?.headers["x-attempts"] == "1")
        #expect(listed.first.flatMap { JSONValue.parse($0.body)?["payload"]?["text"]?.stringValue } == "x")
        // Listing leaves them where they are.
        #expect(try await blocking { try letters.counts([queue]) } == [queue: 1])

        healthy.store(true, ordering: .relaxed)
        #expect(try await blocking { try letters.requeue(queue, limit: 10) } == 1)
        try await TestBroker.waitUntil { handled.load(ordering: .relaxed) == 1 }
        #expect(try await blocking { try letters.counts([queue]) } == [queue: 0])

        healthy.store(false, ordering: .relaxed)
        try publish("y", requestId: "dead-2")
        try await TestBroker.waitUntil(timeout: .seconds(20)) { ((try? letters.counts([queue]))?[queue] ?? 0) == 1 }
        #expect(try await blocking { try letters.purge(queue) } == 1)
        #expect(try await blocking { try letters.counts([queue]) } == [queue: 0])
        #expect(handled.load(ordering: .relaxed) == 1)

        await server.drain(grace: .seconds(1))
        await publisher.stop()
    }
}
