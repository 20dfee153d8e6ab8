import Testing
@testable import LiveCore

struct WebSocketHandshakeTests {
    static func request(_ extra: String = "", version: String = "13", key: String = "dGhlIHNhbXBsZSBub25jZQ==") -> [UInt8] {
        Array(("GET /parse HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
               + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: \(version)\r\n\(extra)\r\n").utf8)
    }

    @Test func acceptsTheRFCExample() {
        #expect(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let bytes = Self.request() + [0x81]
        guard case .upgrade(let response, let consumed, _) = WebSocketHandshake.read(bytes) else {
            Issue.record("no upgrade")
            return
        }
        #expect(response.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(response.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        #expect(consumed == bytes.count - 1)
    }

    @Test func agreesOnGraphQLTransportWSWhenOfferedAndOnNothingElse() {
        guard case .upgrade(let response, _, let subprotocol) = WebSocketHandshake.read(
            Self.request("Sec-WebSocket-Protocol: graphql-ws, graphql-transport-ws\r\n")) else {
            Issue.record("no upgrade")
            return
        }
        #expect(subprotocol == "graphql-transport-ws")
        #expect(response.contains("Sec-WebSocket-Protocol: graphql-transport-ws\r\n"))
        guard case .upgrade(let plain, _, let none) = WebSocketHandshake.read(Self.request("Sec-WebSocket-Protocol: chat\r\n")) else {
            Issue.record("no upgrade")
            return
        }
        #expect(none == nil)
        #expect(!plain.contains("Sec-WebSocket-Protocol"))
    }

    @Test func waitsForTheWholeHead() {
        #expect(WebSocketHandshake.read(Array(Self.request().dropLast(2))) == .incomplete)
    }

    @Test(arguments: [
        (request(version: "8"), "HTTP/1.1 426"),
        (request(key: "short"), "HTTP/1.1 400"),
        (Array("POST /parse HTTP/1.1\r\nUpgrade: websocket\r\n\r\n".utf8), "HTTP/1.1 405"),
        (Array("GET /parse HTTP/1.1\r\nHost: x\r\n\r\n".utf8), "HTTP/1.1 426"),
        (Array("GET /parse/health HTTP/1.1\r\nHost: x\r\n\r\n".utf8), "HTTP/1.1 200"),
        (Array("nonsense\r\n\r\n".utf8), "HTTP/1.1 400"),
        ([UInt8](repeating: 65, count: 9_000), "HTTP/1.1 431"),
    ])
    func answersWhatIsNotAnUpgradeWithHTTP(bytes: [UInt8], status: String) {
        guard case .reject(let response) = WebSocketHandshake.read(bytes) else {
            Issue.record("not refused")
            return
        }
        #expect(response.hasPrefix(status))
    }
}
