#if canImport(Glibc)
import Glibc
#endif
import HTTPServer
import Testing

@Suite struct DisconnectTests {
    @Test func clientLeavingWhileItsRequestWaitsIsHarmless() async throws {
        try await withServer { server, responder in
            let port = server.port
            let clients = 20
            try await blocking {
                for _ in 0..<clients {
                    let client = try RawHTTPClient(port: port)
                    try client.send("GET /slow?ms=200 HTTP/1.1\r\nHost: test\r\n\r\n")
                    // The client object closes its socket here, while the request is suspended.
                }
            }
            #expect(await eventually { responder.events.started == clients })
            #expect(await eventually { responder.events.finished == clients })
            // Every request is reported finished once its resumed connection finds the client gone.
            #expect(await eventually { server.activeRequests == 0 })
            let next = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("GET /echo HTTP/1.1\r\nHost: test\r\n\r\n")
                return try client.readResponse()
            }
            #expect(next.status == 200)
        }
    }

    @Test func clientLeavingMidBodyIsHarmless() async throws {
        try await withServer { server, _ in
            let port = server.port
            let seenByServer = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\nonly some")
                // Leave only once the server holds the request, so the test sees it being released.
                let deadline = ContinuousClock.now + .seconds(5)
                while server.activeRequests == 0 && ContinuousClock.now < deadline { usleep(10_000) }
                return server.activeRequests == 1
            }
            #expect(seenByServer)
            #expect(await eventually { server.activeRequests == 0 })
        }
    }

    /// When the partial request and the close arrive together, MHD may only notice the close at the idle
    /// timeout; the connection must still be released then.
    @Test func partialRequestAndCloseTogetherAreReleasedByTheIdleTimeout() async throws {
        try await withServer(configure: { $0.connectionTimeoutSeconds = 1 }) { server, _ in
            let port = server.port
            try await blocking {
                for _ in 0..<10 {
                    let client = try RawHTTPClient(port: port)
                    try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\nsome")
                }
            }
            #expect(await eventually { server.activeRequests == 0 })
            let next = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                return try client.readResponse()
            }
            #expect(next.text == "immediate")
        }
    }
}
