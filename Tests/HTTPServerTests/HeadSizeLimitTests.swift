@testable import HTTPServer
import Testing

@Suite struct HeadSizeLimitTests {
    /// Answers with about as many header bytes as the gateway's CORS headers.
    struct WideHeadResponder: HTTPResponder {
        func respond(to request: HTTPRequest) async -> HTTPResponse {
            HTTPResponse(status: 200, headers: ["Content-Type": "text/plain",
                                                "X-Wide": String(repeating: "w", count: 600)],
                         body: Array("ok".utf8))
        }
    }

    /// Every head that libmicrohttpd hands on is answered: up to `maxHeadBytes` as usual, beyond it with 431, also
    /// when it leaves less of the connection's memory than the usual answer's head needs (such heads were handled,
    /// then their connections closed unanswered).
    @Test func everyHeadIsAnsweredUpToNearTheConnectionMemory() async throws {
        var configuration = HTTPServerConfiguration(port: 0)
        configuration.connectionMemoryLimit = 16 * 1024
        configuration.maxHeadBytes = 4 * 1024
        let sizes = Array(stride(from: 3 * 1024, through: 16 * 1024 - 512, by: 64))
        let statuses = try await runServer(configuration, responder: WideHeadResponder()) { server, _ in
            let port = server.port
            return try await blocking { () throws -> [Int] in
                try sizes.map { size in
                    let client = try RawHTTPClient(port: port, timeoutSeconds: 10)
                    try client.send(Self.head(ofSize: size))
                    return (try? client.readResponse().status) ?? 0
                }
            }
        }
        for (size, status) in zip(sizes, statuses) {
            #expect(status == (size <= 4 * 1024 ? 200 : 431), "a head of \(size) bytes")
        }
    }

    @Test func theRefusalIsParseServersBareErrorShape() async throws {
        try await withServer { server, _ in
            let port = server.port
            let (response, closed) = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send(Self.head(ofSize: 16 * 1024 + 1))
                let response = try client.readResponse()
                return (response, client.serverClosed())
            }
            #expect(response.status == 431)
            #expect(response.text == #"{"error":"request header fields too large"}"#)
            #expect(closed)
        }
    }

    @Test func recordsPerHeaderAndArgumentCountAgainstTheMemory() {
        let limit = HeadSizeLimit(maxHeadBytes: 16 * 1024, connectionMemory: 32 * 1024)
        #expect(limit.admits(headBytes: 16 * 1024, entries: 10))
        #expect(!limit.admits(headBytes: 16 * 1024 + 1, entries: 0))
        // 8 KB of `a&a&...` is 4,096 arguments, each with its record: more than the memory holds.
        #expect(!limit.admits(headBytes: 8 * 1024, entries: 4096))
    }

    /// A request for `/inspect` whose head is exactly `size` bytes.
    static func head(ofSize size: Int) -> String {
        let start = "GET /inspect?where=", end = " HTTP/1.1\r\nHost: t\r\n\r\n"
        return start + String(repeating: "a", count: size - start.utf8.count - end.utf8.count) + end
    }
}
