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

    @Test func deadLettersAreCountedListedRequeuedAndPurged() async throws {
        let url = try #require(TestBroker.url)
        let queue = "test.dead.\(UUID().uuidString.prefix(8))"
        let healthy = Atomic<Bool>(false)
        let handled = Atomic<Int>(0)
        var router = CommandRouter()
        router.register("flaky.v1", Echo.self) { command, _ in
            guard healthy.load(ordering: .relaxed) else { throw CocoaError(.fileNoSuchFile) }
            handled.add(1, ordering: .relaxed)
            return command.payload
        }
        let server = CommandServer(service: .votes, queue: queue, url: url, router: router,
                                   options: .init(maxAttempts: 2), logger: Self.logger)
        server.start()
        let client = RPCClient(url: url, name: "test-client", eventExchange: "parse.events", logger: Self.logger)
        client.start()
        try await TestBroker.waitUntil { client.isConnected && server.isConnected }
        let letters = DeadLetterQueues(url: url)

        // Fails twice, then is kept in the dead-letter queue.
        await #expect(throws: ParseError.self) {
            let _: Echo = try await client.send("flaky.v1", Echo(text: "x"), queue: queue, requestId: "dead-1",
                                                identity: .anonymous, timeout: .seconds(10))
        }
        try await TestBroker.waitUntil { ((try? letters.counts([queue]))?[queue] ?? 0) == 1 }

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
        await #expect(throws: ParseError.self) {
            let _: Echo = try await client.send("flaky.v1", Echo(text: "y"), queue: queue, requestId: "dead-2",
                                                identity: .anonymous, timeout: .seconds(10))
        }
        try await TestBroker.waitUntil { ((try? letters.counts([queue]))?[queue] ?? 0) == 1 }
        #expect(try await blocking { try letters.purge(queue) } == 1)
        #expect(try await blocking { try letters.counts([queue]) } == [queue: 0])
        #expect(handled.load(ordering: .relaxed) == 1)

        await server.drain(grace: .seconds(1))
        await client.stop()
    }
}
