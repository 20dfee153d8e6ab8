import Contracts
import Foundation
import ParseWire
import Runtime
import Testing
@testable import Messaging

/// Raw commands against the test stack's RabbitMQ: bytes as the body both ways, metadata in headers.
@Suite(.enabled(if: TestBroker.url != nil, "needs PARSE_TEST_AMQP_URL (set by `deploy/stack test`)"))
struct RawCommandTests {
    static let logger = Logger(service: "messaging-tests", level: .error)

    struct Echo: Codable, Sendable, Equatable { var text: String }

    private func waitUntil(timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws {
        try await TestBroker.waitUntil(timeout: timeout, condition)
    }

    @Test func bytesAndHeadersTravelAsTheyAreAndRefusalsAsParseErrors() async throws {
        let url = try #require(TestBroker.url)
        let queue = "test.raw.\(UUID().uuidString.prefix(8))"
        var router = CommandRouter()
        router.registerRaw("reverse.v1") { command, _ in
            if command.headers["refuse"] == "1" { throw ParseError(.objectNotFound, "Nothing here.") }
            return RawMessage(headers: ["count": String(command.body.count), "user": command.identity.userId ?? "-",
                                        "request": command.requestId],
                              body: command.body.reversed())
        }
        let server = CommandServer(service: .files, queue: queue, url: url, router: router, logger: Self.logger)
        server.start()
        let client = RPCClient(url: url, name: "raw-client", eventExchange: "parse.events", logger: Self.logger)
        client.start()
        try await waitUntil { client.isConnected && server.isConnected }

        // Larger than one AMQP frame, with every byte value (NULs included).
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let reply = try await client.call(raw: "reverse.v1", RawMessage(headers: ["note": "é"], body: bytes),
                                          queue: queue, requestId: "r1", identity: Identity(userId: "u1"),
                                          timeout: .seconds(5))
        #expect(reply.body == bytes.reversed())
        #expect(reply.headers == ["count": "300000", "user": "u1", "request": "r1"])

        await #expect(throws: ParseError(.objectNotFound, "Nothing here.")) {
            _ = try await client.call(raw: "reverse.v1", RawMessage(headers: ["refuse": "1"]), queue: queue,
                                      requestId: "r2", identity: .anonymous, timeout: .seconds(5))
        }
        // A JSON command to a raw route lacks the identity header: a Parse error, not a crash or a retry.
        await #expect(throws: ParseError(.invalidJSON, "Malformed reverse.v1 command.")) {
            let _: Echo = try await client.send("reverse.v1", Echo(text: "x"), queue: queue, requestId: "r3",
                                                identity: .anonymous, timeout: .seconds(5))
        }
        await server.drain(grace: .seconds(1))
        await client.stop()
    }
}
