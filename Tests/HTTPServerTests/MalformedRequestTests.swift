import HTTPServer
import Synchronization
import Testing

@Suite struct MalformedRequestTests {
    @Test func duplicateContentLengthIsRefusedAndTheConnectionClosed() async throws {
        try await withServer { server, responder in
            let port = server.port
            let (response, closed) = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd")
                let response = try client.readResponse()
                return (response, client.serverClosed())
            }
            #expect(response.status == 400)
            #expect(response.text == #"{"error":"bad request"}"#)
            #expect(closed)
            #expect(responder.events.started == 0)
        }
    }

    @Test func contentLengthWithTransferEncodingIsRefused() async throws {
        try await withServer { server, _ in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\n"
                                + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 400)
        }
    }

    @Test(arguments: [
        "HELLO WORLD\r\n\r\n",
        "GET / HTTP/1.1\r\nNo colon here\r\n\r\n",
        "GET / HTTP/1.1\r\n\r\n",                                          // HTTP/1.1 without Host
        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ])
    func malformedRequestGets400AndTheServerStillAnswers(request: String) async throws {
        try await withServer { server, _ in
            let port = server.port
            let (status, next) = try await blocking {
                let bad = try RawHTTPClient(port: port)
                try bad.send(request)
                let status = try bad.readResponse().status
                let good = try RawHTTPClient(port: port)
                try good.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                return (status, try good.readResponse())
            }
            #expect(status == 400)
            #expect(next.text == "immediate")
        }
    }

    @Test func binaryGarbageDoesNotHurtTheServer() async throws {
        try await withServer { server, _ in
            let port = server.port
            let next = try await blocking {
                let bad = try RawHTTPClient(port: port)
                try bad.send((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
                _ = try? bad.readUntilClosed()
                let good = try RawHTTPClient(port: port)
                try good.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                return try good.readResponse()
            }
            #expect(next.text == "immediate")
        }
    }

    @Test func libraryErrorsGoToTheConfiguredLog() async throws {
        let lines = Mutex<[String]>([])
        try await withServer(configure: { configuration in
            configuration.errorLog = { line in lines.withLock { $0.append(line) } }
        }) { server, _ in
            let port = server.port
            _ = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("HELLO WORLD\r\n\r\n")
                return try client.readResponse().status
            }
            #expect(await eventually { !lines.withLock { $0.isEmpty } })
            #expect(lines.withLock { $0.allSatisfy { !$0.hasSuffix("\n") && !$0.isEmpty } })
        }
    }

    @Test func oversizedHeadGets431() async throws {
        try await withServer { server, _ in
            let port = server.port
            let status = try await blocking {
                let client = try RawHTTPClient(port: port)
                let big = String(repeating: "a", count: 100 * 1024)
                try? client.send("GET /immediate HTTP/1.1\r\nHost: test\r\nX-Big: \(big)\r\n\r\n")
                return try client.readResponse().status
            }
            #expect(status == 431)
        }
    }
}
