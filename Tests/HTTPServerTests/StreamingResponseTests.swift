#if canImport(Glibc)
import Glibc
#endif
import HTTPServer
import Testing

@Suite struct StreamingResponseTests {
    @Test func knownLengthArrivesCompleteAndExact() async throws {
        try await withStreamingServer { server, _ in
            let port = server.port
            let count = 5 * 1024 * 1024 + 11
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("GET /download?bytes=\(count) HTTP/1.1\r\nHost: test\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.headers["Content-Length"] == "\(count)")
            #expect(response.headers["Transfer-Encoding"] == nil)
            #expect(response.body == testPattern(count))
            #expect(await eventually { server.activeRequests == 0 })
        }
    }

    @Test func connectionIsReusableAfterAStreamedResponse() async throws {
        try await withStreamingServer { server, _ in
            let port = server.port
            let (first, second) = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("GET /download?bytes=1000 HTTP/1.1\r\nHost: test\r\n\r\n")
                let first = try client.readResponse()
                try client.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                return (first, try client.readResponse())
            }
            #expect(first.body == testPattern(1000))
            #expect(second.text == "immediate")
        }
    }

    @Test func emptyStreamedResponse() async throws {
        try await withStreamingServer { server, _ in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("GET /download?bytes=0 HTTP/1.1\r\nHost: test\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.headers["Content-Length"] == "0")
            #expect(response.body.isEmpty)
        }
    }

    /// The client cannot be given fewer bytes than announced as if that were the body: the connection closes.
    @Test func throwingProducerEndsTheResponseByClosing() async throws {
        try await withStreamingServer { server, _ in
            let port = server.port
            let received = try await blocking {
                let client = try RawHTTPClient(port: port, timeoutSeconds: 10)
                try client.send("GET /download/failing HTTP/1.1\r\nHost: test\r\n\r\n")
                // Throws `timedOut` if the server keeps the connection open.
                return try client.readUntilClosed()
            }
            #expect(received.count < 4 << 20)
            #expect(await eventually { server.activeRequests == 0 })
            let next = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                return try client.readResponse()
            }
            #expect(next.text == "immediate")
        }
    }

    @Test func clientLeavingMidResponseCancelsTheWriter() async throws {
        try await withStreamingServer { server, responder in
            let port = server.port
            let status = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("GET /download/endless HTTP/1.1\r\nHost: test\r\n\r\n")
                return try client.readHeadOnly()
                // The client object closes its socket here, with the body still coming.
            }
            #expect(status.hasPrefix("HTTP/1.1 200"))
            #expect(await eventually(timeout: .seconds(10)) { responder.events.writerCancelled })
            #expect(await eventually { server.activeRequests == 0 })
        }
    }
}
