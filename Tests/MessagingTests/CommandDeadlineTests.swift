import Contracts
import Foundation
import ParseWire
import Runtime
import Synchronization
import Testing
@testable import Messaging

/// A command carries its caller's deadline; the handler runs under it (`Deadline.current`), and work stopped at it
/// is answered as a timeout (124) and acknowledged, never run again.
@Suite(.enabled(if: TestBroker.url != nil, "needs PARSE_TEST_AMQP_URL (set by `deploy/stack test`)"))
struct CommandDeadlineTests {
    static let logger = Logger(service: "messaging-tests", level: .error)

    struct Echo: Codable, Sendable, Equatable { var text: String }

    private func uniqueQueue(_ name: String) -> String { "test.\(name).\(UUID().uuidString.prefix(8))" }

    @Test func theHandlerRunsUnderTheCallersDeadlineLessAMargin() async throws {
        let queue = uniqueQueue("deadline")
        var router = CommandRouter()
        router.register("left.v1", Echo.self) { _, _ in
            Echo(text: Deadline.current.map { String(Int($0.remaining.totalMilliseconds)) } ?? "none")
        }
        let server = CommandServer(service: .posts, queue: queue, url: try #require(TestBroker.url), router: router,
                                   logger: Self.logger)
        server.start()
        let client = RPCClient(url: try #require(TestBroker.url), name: "test-client", eventExchange: "parse.events",
                               logger: Self.logger)
        client.start()
        try await TestBroker.waitUntil { client.isConnected && server.isConnected }

        let reply: Echo = try await client.send("left.v1", Echo(text: ""), queue: queue, requestId: "d",
                                                identity: .anonymous, timeout: .seconds(4))
        let left = try #require(Int(reply.text))
        print("the handler had \(left) ms of a 4000 ms call")
        #expect(left > 0)
        #expect(left <= 4000 - 250)
        await server.drain(grace: .seconds(1))
        await client.stop()
    }

    @Test func workStoppedAtTheDeadlineIsAnsweredAsATimeoutAndNotRunAgain() async throws {
        let queue = uniqueQueue("late")
        let runs = Atomic<Int>(0)
        var router = CommandRouter()
        router.register("late.v1", Echo.self) { (_, _) async throws -> Echo in
            runs.add(1, ordering: .relaxed)
            throw DeadlineExceeded("the statement")
        }
        let server = CommandServer(service: .posts, queue: queue, url: try #require(TestBroker.url), router: router,
                                   options: .init(maxAttempts: 3), logger: Self.logger)
        server.start()
        let client = RPCClient(url: try #require(TestBroker.url), name: "test-client", eventExchange: "parse.events",
                               logger: Self.logger)
        client.start()
        try await TestBroker.waitUntil { client.isConnected && server.isConnected }

        do {
            let _: Echo = try await client.send("late.v1", Echo(text: ""), queue: queue, requestId: "l",
                                                identity: .anonymous, timeout: .seconds(5))
            Issue.record("a command stopped at its deadline must fail")
        } catch let error as ParseError {
            #expect(error.code == .timeout)
            #expect(error.message.contains("deadline"))
        }
        // A retry would come after 100 ms of back-off; give it several times that to show up.
        try await Task.sleep(for: .seconds(1))
        #expect(runs.load(ordering: .relaxed) == 1)
        await server.drain(grace: .seconds(1))
        await client.stop()
    }

    @Test func aCallMadeWhileHandlingWaitsNoLongerThanItsOwnCaller() async throws {
        let queue = uniqueQueue("nested")
        let client = RPCClient(url: try #require(TestBroker.url), name: "test-client", eventExchange: "parse.events",
                               logger: Self.logger)
        client.start()
        let holder = AMQPConnection(url: try #require(TestBroker.url),
                                    options: .init(name: "holder",
                                                   topology: Topology.commandQueues([queue], eventExchange: "parse.events")),
                                    logger: Self.logger)
        holder.start()
        try await TestBroker.waitUntil { client.isConnected && holder.isConnected }
        // Nobody consumes `queue`: the call can only end by its timeout, here what is left of the surrounding
        // deadline's 300 ms.
        do {
            try await Deadline.$current.withValue(.after(.milliseconds(300))) {
                let _: Echo = try await client.send("echo.v1", Echo(text: ""), queue: queue, requestId: "n",
                                                    identity: .anonymous, timeout: .seconds(30))
            }
            Issue.record("a call to a queue nobody consumes must time out")
        } catch let error as MessagingError {
            guard case .timeout(let timedOutQueue, let milliseconds) = error else {
                Issue.record("expected a timeout, got \(error)")
                return
            }
            #expect(timedOutQueue == queue)
            #expect(milliseconds <= 300)
        }
        await holder.stop()
        await client.stop()
    }

    @Test func headersGiveTheDeadlineAndTheTimeoutBoundsAClockAhead() {
        let headers = CommandDeadline.headers(timeoutMilliseconds: 2000)
        let deadline = CommandDeadline.forHandling(headers)
        #expect(deadline != nil)
        #expect((deadline?.remaining ?? .zero) <= .milliseconds(2000 - 250))
        #expect((deadline?.remaining ?? .zero) > .zero)
        // A caller whose clock runs an hour ahead is still bounded by the timeout it sent.
        var skewed = headers
        skewed[CommandDeadline.deadlineHeader] = String(Int(skewed[CommandDeadline.deadlineHeader]!)! + 3_600_000)
        #expect((CommandDeadline.forHandling(skewed)?.remaining ?? .zero) <= .milliseconds(2000))
        // Past: zero left. None sent: no deadline.
        skewed[CommandDeadline.deadlineHeader] = String(Int(headers[CommandDeadline.deadlineHeader]!)! - 10_000)
        #expect(CommandDeadline.forHandling(skewed)?.hasPassed == true)
        #expect(CommandDeadline.forHandling([:]) == nil)
    }
}
