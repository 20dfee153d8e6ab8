#if canImport(Glibc)
import Glibc
#endif
import HTTPServer
import Testing

@Suite struct StreamingRequestBodyTests {
    private static let partBytes = 256 * 1024

    private func smallParts(_ configuration: inout HTTPServerConfiguration) {
        configuration.streamPartBytes = Self.partBytes
    }

    /// Every part is exactly `partBytes` except a shorter last one, as `HTTPBodyStream` documents.
    private func expectWholeParts(_ sizes: [Int], total: Int) {
        #expect(sizes.reduce(0, +) == total)
        #expect(sizes.count == (total + Self.partBytes - 1) / Self.partBytes)
        #expect(sizes.dropLast().allSatisfy { $0 == Self.partBytes })
        #expect(sizes.allSatisfy { $0 > 0 && $0 <= Self.partBytes })
    }

    @Test func bodyWithContentLengthArrivesCompleteInPartsInOrder() async throws {
        try await withStreamingServer(configure: smallParts) { server, responder in
            let port = server.port
            let sent = testPattern(5 * 1024 * 1024 + 123)
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: \(sent.count)\r\n\r\n")
                try client.send(sent)
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.text == "\(sent.count)")
            #expect(responder.events.received == sent)
            expectWholeParts(responder.events.partSizes, total: sent.count)
        }
    }

    @Test func chunkedBodyArrivesCompleteInPartsInOrder() async throws {
        try await withStreamingServer(configure: smallParts) { server, responder in
            let port = server.port
            let sent = testPattern(3 * 1024 * 1024 + 7)
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /upload HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n")
                // Chunks that do not line up with parts.
                try client.send(sent.chunked(chunkBytes: 10_007))
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.text == "\(sent.count)")
            #expect(responder.events.received == sent)
            expectWholeParts(responder.events.partSizes, total: sent.count)
        }
    }

    /// A reader slower than the client makes the server suspend and resume the connection; nothing is lost.
    @Test func slowReaderStillGetsTheWholeBody() async throws {
        try await withStreamingServer(configure: { $0.streamPartBytes = 64 * 1024 }) { server, responder in
            let port = server.port
            let sent = testPattern(2 * 1024 * 1024)
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /upload?delayMs=5 HTTP/1.1\r\nHost: test\r\nContent-Length: \(sent.count)\r\n\r\n")
                try client.send(sent)
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(responder.events.received == sent)
            #expect(responder.events.partSizes.allSatisfy { $0 <= 64 * 1024 })
        }
    }

    @Test func emptyBodyEndsAtOnce() async throws {
        try await withStreamingServer(configure: smallParts) { server, responder in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.text == "0")
            #expect(responder.events.partSizes.isEmpty)
            #expect(responder.events.bodyEnded)
        }
    }

    @Test func chunkedBodyOverTheLimitFailsAsTooLarge() async throws {
        try await withStreamingServer(configure: {
            $0.streamPartBytes = 64 * 1024
            $0.maxBodyBytes = 1024 * 1024
        }) { server, responder in
            let port = server.port
            let sent = testPattern(1536 * 1024)
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /upload HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n")
                try client.send(sent.chunked(chunkBytes: 16 * 1024))
                return try client.readResponse()
            }
            #expect(response.status == 413)
            #expect(responder.events.failure == .tooLarge)
            #expect(!responder.events.bodyEnded)
            // Nothing past the limit reached the reader.
            #expect(responder.events.received.count <= 1024 * 1024)
            #expect(await eventually { server.activeRequests == 0 })
        }
    }

    @Test func clientLeavingMidBodyFailsAsIncomplete() async throws {
        // MHD may notice the close only at the idle timeout; keep that short.
        try await withStreamingServer(configure: {
            smallParts(&$0)
            $0.connectionTimeoutSeconds = 2
        }) { server, responder in
            let port = server.port
            let events = responder.events
            let readerStarted = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: \(8 << 20)\r\n\r\n")
                try client.send(testPattern(1 << 20))
                // Leave only once the reader has taken parts, so the body is known to be under way. The reader is a
                // task of the cooperative pool, which the suites running beside this one can keep busy for seconds.
                let deadline = ContinuousClock.now + .seconds(30)
                while events.partSizes.isEmpty && ContinuousClock.now < deadline { usleep(10_000) }
                return !events.partSizes.isEmpty
                // The client object closes its socket here.
            }
            #expect(readerStarted)
            #expect(await eventually { responder.events.failure == .incomplete })
            #expect(!responder.events.bodyEnded)
            #expect(await eventually { server.activeRequests == 0 })
        }
    }

    @Test func earlyAnswerDrainsTheRestAndKeepsTheConnection() async throws {
        try await withStreamingServer(configure: smallParts) { server, _ in
            let port = server.port
            let sent = testPattern(2 << 20)
            let (early, next) = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /upload/first-part HTTP/1.1\r\nHost: test\r\nContent-Length: \(sent.count)\r\n\r\n")
                try client.send(sent)
                let early = try client.readResponse()
                try client.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                return (early, try client.readResponse())
            }
            #expect(early.status == 200)
            #expect(early.text == "first \(Self.partBytes)")
            #expect(next.text == "immediate")
        }
    }

    @Test func plainRoutesStillWorkBesideStreamedOnes() async throws {
        try await withStreamingServer(configure: smallParts) { server, responder in
            let port = server.port
            let body = testPattern(300_000)
            let (echo, immediate, upload) = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("PUT /echo HTTP/1.1\r\nHost: test\r\nContent-Length: \(body.count)\r\n\r\n")
                try client.send(body)
                let echo = try client.readResponse()
                try client.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                let immediate = try client.readResponse()
                try client.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\n\r\nabc")
                return (echo, immediate, try client.readResponse())
            }
            #expect(echo.status == 200)
            #expect(echo.headers["X-Method"] == "PUT")
            // Not streamed: the plain responder got the body whole.
            #expect(echo.body == body)
            #expect(immediate.text == "immediate")
            #expect(upload.text == "3")
            #expect(responder.events.received == Array("abc".utf8))
        }
    }
}
