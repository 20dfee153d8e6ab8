#if canImport(Glibc)
import Glibc
#endif
import HTTPServer
import Testing

@Suite struct ShutdownTests {
    private func startedServer(_ responder: TestResponder) throws -> HTTPServer {
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0), responder: responder)
        try server.start()
        return server
    }

    @Test func requestInFlightFinishesBeforeTheServerStops() async throws {
        let responder = TestResponder()
        let server = try startedServer(responder)
        let port = server.port
        async let response = blocking {
            let client = try RawHTTPClient(port: port)
            try client.send("GET /slow?ms=300 HTTP/1.1\r\nHost: test\r\n\r\n")
            return try client.readResponse()
        }
        #expect(await eventually { responder.events.started == 1 })
        await server.shutdown(gracePeriod: .seconds(5))
        let answered = try await response
        #expect(answered.status == 200)
        #expect(answered.text == "slow")
        #expect(answered.headers["Connection"]?.lowercased() == "close")
        #expect(throws: RawClientError.self) { try RawHTTPClient(port: port) }
    }

    @Test func requestOnAnOpenConnectionDuringTheGracePeriodIsServed() async throws {
        let responder = TestResponder()
        let server = try startedServer(responder)
        let port = server.port
        let shutdownStarted = Flag()
        async let slow = blocking {
            let client = try RawHTTPClient(port: port)
            try client.send("GET /slow?ms=500 HTTP/1.1\r\nHost: test\r\n\r\n")
            return try client.readResponse()
        }
        async let kept = blocking {
            let client = try RawHTTPClient(port: port)
            try client.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
            let before = try client.readResponse()
            let deadline = ContinuousClock.now + .seconds(10)
            while !shutdownStarted.isRaised && ContinuousClock.now < deadline { usleep(5_000) }
            try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 4\r\n\r\nlate")
            return (before, try client.readResponse())
        }
        #expect(await eventually { responder.events.started == 1 })
        async let stopped: Void = server.shutdown(gracePeriod: .seconds(5))
        try await Task.sleep(for: .milliseconds(100))
        shutdownStarted.raise()
        let (before, late) = try await kept
        #expect(before.headers["Connection"] == nil)
        #expect(late.status == 200)
        #expect(late.text == "late")
        #expect(late.headers["Connection"]?.lowercased() == "close")
        #expect(try await slow.status == 200)
        await stopped
    }

    @Test func requestOutlastingTheGracePeriodGetsServiceUnavailable() async throws {
        let responder = TestResponder()
        let server = try startedServer(responder)
        let port = server.port
        async let response = blocking {
            let client = try RawHTTPClient(port: port)
            try client.send("GET /slow?ms=30000 HTTP/1.1\r\nHost: test\r\n\r\n")
            return try client.readResponse()
        }
        #expect(await eventually { responder.events.started == 1 })
        let clock = ContinuousClock()
        let elapsed = await clock.measure { await server.shutdown(gracePeriod: .milliseconds(200)) }
        // Far below the request's 30 s, whatever the machine's load: the shutdown did not wait for it.
        #expect(elapsed < .seconds(15), "the shutdown waited for the request")
        #expect(try await response.status == 503)
    }

    @Test func shutdownTwiceIsSafe() async throws {
        let server = try startedServer(TestResponder())
        async let first: Void = server.shutdown(gracePeriod: .seconds(1))
        async let second: Void = server.shutdown(gracePeriod: .seconds(1))
        _ = await (first, second)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func serverReleasedWhileRunningStops() throws {
        var server: HTTPServer? = try startedServer(TestResponder())
        let port = server?.port ?? 0
        #expect(port != 0)
        server = nil
        #expect(throws: RawClientError.self) { try RawHTTPClient(port: port) }
    }

    @Test func secondStartIsRefused() async throws {
        let server = try startedServer(TestResponder())
        #expect(throws: HTTPServerError.self) { try server.start() }
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func shutdownOfAServerNeverStartedReturns() async {
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0), responder: TestResponder())
        await server.shutdown(gracePeriod: .seconds(1))
    }
}
