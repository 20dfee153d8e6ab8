import HTTPServer
import Testing

@Suite struct BodyLimitTests {
    private func limited(_ configuration: inout HTTPServerConfiguration) {
        configuration.maxBodyBytes = 1024
    }

    @Test func declaredLengthOverTheLimitIsRefusedAtOnce() async throws {
        try await withServer(configure: limited) { server, responder in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                // No body is sent: the answer must not wait for it.
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 5000\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 413)
            #expect(response.text == #"{"error":"request entity too large"}"#)
            #expect(responder.events.started == 0)
        }
    }

    /// A client that writes its whole body before it reads gets the 413, not a connection reset under its upload;
    /// the body is drained, so the connection still serves.
    @Test func declaredLengthJustOverTheLimitIsDrainedThenRefused() async throws {
        try await withServer(configure: limited) { server, responder in
            let port = server.port
            let (refused, next) = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 2048\r\n\r\n")
                try client.send([UInt8](repeating: 7, count: 2048))
                let refused = try client.readResponse()
                try client.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                return (refused, try client.readResponse())
            }
            #expect(refused.status == 413)
            #expect(refused.text == #"{"error":"request entity too large"}"#)
            #expect(next.text == "immediate")
            #expect(responder.events.started == 0)
        }
    }

    @Test func expectContinueOverTheLimitGetsNoContinue() async throws {
        try await withServer(configure: limited) { server, _ in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n")
                return try client.readHeadOnly()
            }
            #expect(response.hasPrefix("HTTP/1.1 413"))
        }
    }

    @Test func bodyAtTheLimitIsAccepted() async throws {
        try await withServer(configure: limited) { server, _ in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 1024\r\n\r\n")
                try client.send([UInt8](repeating: 7, count: 1024))
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.body.count == 1024)
        }
    }

    @Test func chunkedBodyOverTheLimitIsDrainedThenRefused() async throws {
        try await withServer(configure: limited) { server, responder in
            let port = server.port
            let (refused, next) = try await blocking {
                let client = try RawHTTPClient(port: port)
                let chunk = String(repeating: "x", count: 500)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + String(repeating: "1f4\r\n\(chunk)\r\n", count: 3) + "0\r\n\r\n")
                let refused = try client.readResponse()
                // The body was consumed, so the connection is still usable.
                try client.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                return (refused, try client.readResponse())
            }
            #expect(refused.status == 413)
            #expect(next.text == "immediate")
            #expect(responder.events.started == 0)
        }
    }

    @Test func chunkedBodyFarOverTheLimitClosesTheConnection() async throws {
        try await withServer(configure: limited) { server, _ in
            let port = server.port
            let closed = try await blocking {
                let client = try RawHTTPClient(port: port)
                let chunk = String(repeating: "x", count: 4096)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + "1000\r\n\(chunk)\r\n")
                return client.serverClosed()
            }
            #expect(closed)
            #expect(await eventually { server.activeRequests == 0 })
        }
    }
}
