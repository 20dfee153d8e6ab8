import HTTPServer
import Testing

@Suite struct KeepAliveTests {
    @Test func twoRequestsShareOneConnection() async throws {
        try await withServer { server, _ in
            let port = server.port
            let responses = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\n\r\none")
                let first = try client.readResponse()
                try client.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                let second = try client.readResponse()
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\nthree")
                return [first, second, try client.readResponse()]
            }
            #expect(responses.map(\.status) == [200, 200, 200])
            #expect(responses.map(\.text) == ["one", "immediate", "three"])
            #expect(responses.allSatisfy { $0.headers["Connection"]?.lowercased() != "close" })
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withServer { server, _ in
            let port = server.port
            let texts = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("GET /slow?ms=50 HTTP/1.1\r\nHost: test\r\n\r\n"
                                + "POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 2\r\n\r\nhi"
                                + "GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                return try (0..<3).map { _ in try client.readResponse().text }
            }
            #expect(texts == ["slow", "hi", "immediate"])
        }
    }
}
