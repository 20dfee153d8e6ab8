import Foundation
import HTTPServer
import Testing

@Suite struct RequestRoutingTests {
    @Test func getGoesThroughTheAsyncPath() async throws {
        try await withServer { server, _ in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("GET /echo HTTP/1.1\r\nHost: test\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.headers["X-Method"] == "GET")
            #expect(response.body.isEmpty)
            #expect(response.headers["Date"] != nil)
        }
    }

    @Test func postBodyIsEchoed() async throws {
        try await withServer { server, _ in
            let port = server.port
            let body = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: \(body.count)\r\n\r\n")
                try client.send(body)
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.headers["X-Method"] == "POST")
            #expect(response.body == body)
        }
    }

    @Test func chunkedBodyIsDechunked() async throws {
        try await withServer { server, _ in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.text == "hello world")
        }
    }

    @Test func expectContinueGetsAnInterimResponse() async throws {
        try await withServer { server, _ in
            let port = server.port
            let (interim, response) = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
                let interim = try client.readHeadOnly()
                try client.send("data")
                return (interim, try client.readResponse())
            }
            #expect(interim.hasPrefix("HTTP/1.1 100"))
            #expect(response.status == 200)
            #expect(response.text == "data")
        }
    }

    @Test func immediatePathAnswersWithoutTheResponderTask() async throws {
        try await withServer { server, responder in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.text == "immediate")
            #expect(response.headers["Content-Type"] == "text/plain")
            #expect(responder.events.started == 0)
        }
    }

    @Test func pathAndQueryArePercentDecodedInOrder() async throws {
        try await withServer { server, _ in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("GET /insp%65ct?a=1&b=hello%20world&c=x+y&flag&a=2&%C3%A9=%E2%9C%93&where=%7B%22k%22%3A1%7D "
                                + "HTTP/1.1\r\nHost: test\r\nX-Multi: one\r\nx-multi: two\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 200)
            let inspected = try JSONDecoder().decode(InspectedRequest.self, from: Data(response.body))
            #expect(inspected.path == "/inspect")
            #expect(inspected.query == [["a", "1"], ["b", "hello world"], ["c", "x y"], ["flag", ""], ["a", "2"],
                                        ["é", "✓"], ["where", #"{"k":1}"#]])
            #expect(inspected.headers == [["Host", "test"], ["X-Multi", "one"], ["x-multi", "two"]])
            #expect(inspected.remoteAddress == "127.0.0.1")
            #expect(inspected.method == "GET")
        }
    }

    @Test func responseHeadersAreSentAsGivenExceptContentLength() async throws {
        try await withServer { server, _ in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("GET /headers HTTP/1.1\r\nHost: test\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 201)
            #expect(response.headers.values("Set-Cookie") == ["a=1", "b=2"])
            #expect(response.headers.values("Content-Length") == ["3"])
            #expect(response.headers["X-Custom"] == "value")
            #expect(response.text == "abc")
        }
    }

    @Test func headResponseCarriesNoBody() async throws {
        try await withServer { server, _ in
            let port = server.port
            let (head, next) = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("HEAD /headers HTTP/1.1\r\nHost: test\r\n\r\n")
                let head = try client.readResponse(toHead: true)
                // Had a body been sent, it would be read here as the start of the next response.
                try client.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                return (head, try client.readResponse())
            }
            #expect(head.status == 201)
            #expect(head.headers["Content-Length"] == "3")
            #expect(next.status == 200)
            #expect(next.text == "immediate")
        }
    }

    @Test func servesIPv6Loopback() async throws {
        guard FileManager.default.fileExists(atPath: "/proc/net/if_inet6") else { return }
        try await withServer(configure: { $0.host = "::1" }) { server, _ in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port, host: "::1")
                try client.send("GET /inspect HTTP/1.1\r\nHost: test\r\n\r\n")
                return try client.readResponse()
            }
            let inspected = try JSONDecoder().decode(InspectedRequest.self, from: Data(response.body))
            #expect(inspected.remoteAddress == "::1")
        }
    }

    @Test func refusesAHostName() {
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "localhost", port: 0),
                                responder: TestResponder())
        #expect(throws: HTTPServerError.self) { try server.start() }
    }
}
