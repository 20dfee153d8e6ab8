import HTTPServer
import Testing

/// NUL bytes that MHD would cut a path or a header value at, and header names MHD would keep with whitespace,
/// are refused with 400 before any responder sees the request; ordinary variations of a head still pass.
@Suite struct HeadIntegrityTests {
    /// A generous read timeout: in a full parallel test run on two cores, busy tests can keep the responders'
    /// tasks waiting for seconds.
    private static func exchange(_ port: UInt16, _ bytes: [UInt8]) throws -> (status: Int, text: String, closed: Bool) {
        let client = try RawHTTPClient(port: port, timeoutSeconds: 30)
        try client.send(bytes)
        let response = try client.readResponse()
        return (response.status, response.text, response.status == 400 ? client.serverClosed() : false)
    }

    @Test(arguments: [
        "POST /classes/Probe%00evil HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}",
        "GET /classes/Probe%00 HTTP/1.1\r\nHost: t\r\n\r\n",
        "GET /inspect\u{0}evil HTTP/1.1\r\nHost: t\r\n\r\n",
        "GET /inspect?where=1\u{0}evil HTTP/1.1\r\nHost: t\r\n\r\n",
        "GET /inspect HTTP/1.1\r\nHost: t\r\nX-Parse-Master-Key: key\u{0}junk\r\n\r\n",
        "GET /inspect HTTP/1.1\r\nX-Parse-Master-Key: key\u{0}junk\r\nHost: t\r\n\r\n",
        "GET /inspect HTTP/1.1\r\nHost: t\r\nX-Key: key\u{0}\r\n\r\n",
        "GET /inspect HTTP/1.1\r\nHost: t\r\nX-Key: key\n\u{0}X-Other: b\r\n\r\n",
        "GET /inspect HTTP/1.1\r\nHost: t\r\nX-Folded: a\r\n b\r\n\r\n",
    ])
    func aNULInThePathOrAHeaderValueIsRefused(request: String) async throws {
        try await withServer { server, responder in
            let port = server.port
            let reply = try await blocking { try Self.exchange(port, Array(request.utf8)) }
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.closed)
            #expect(responder.events.started == 0)
            // The server goes on answering others.
            let next = try await blocking { try Self.exchange(port, Array("GET /immediate HTTP/1.1\r\nHost: t\r\n\r\n".utf8)) }
            #expect(next.status == 200)
        }
    }

    @Test(arguments: [
        "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding : chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding\t: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length : 2\r\n\r\n{}",
        "GET /inspect HTTP/1.1\r\nHost: t\r\nX(Y): 1\r\n\r\n",
        "GET /inspect HTTP/1.1\r\nHost: t\r\n: empty name\r\n\r\n",
    ])
    func aHeaderNameThatIsNotATokenIsRefused(request: String) async throws {
        try await withServer { server, responder in
            let port = server.port
            let reply = try await blocking { try Self.exchange(port, Array(request.utf8)) }
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.closed)
            #expect(responder.events.started == 0)
        }
    }

    @Test(arguments: [
        "GET /inspect HTTP/1.1\r\nHost: t\r\n\r\n",
        "GET /inspect HTTP/1.1\nHost: t\nX-Bare-LF: 1\n\n",
        "GET /inspect HTTP/1.1\r\nHost: t\nX-Mixed: 1\r\n\n",
        "GET /inspect HTTP/1.1\r\nHost:t\r\nX-Trailing: value   \r\nX-Empty:\r\nX-Tabs:\t\tv\r\n\r\n",
        "GET /inspect?where=%7B%22a%22%3A1%7D&x=%00 HTTP/1.1\r\nHost: t\r\nCookie: a=1; b=2\r\n\r\n",
        "GET /in%73pect HTTP/1.1\r\nHost: t\r\nX-Percent: %00 is text here\r\n\r\n",
        "\r\nGET /inspect HTTP/1.1\r\nHost: t\r\n\r\n",
    ])
    func ordinaryHeadsStillPass(request: String) async throws {
        try await withServer { server, _ in
            let port = server.port
            let reply = try await blocking { try Self.exchange(port, Array(request.utf8)) }
            #expect(reply.status == 200, "\(reply.text)")
        }
    }

    /// Node, and so parse-server, takes request heads of up to 16 KB by default: so does the default connection
    /// memory, on a kept-alive connection's second request as on its first.
    @Test func headsOfSixteenKilobytesPassWithTheDefaultMemory() async throws {
        try await withServer { server, _ in
            let port = server.port
            var head = "GET /inspect HTTP/1.1\r\nHost: t\r\n"
            var index = 0
            while head.utf8.count < 16 * 1024 - 120 {
                head += "X-Field-\(index): \(String(repeating: "v", count: 100))\r\n"
                index += 1
            }
            head += "\r\n"
            let request = head
            let statuses = try await blocking { () throws -> [Int] in
                let client = try RawHTTPClient(port: port, timeoutSeconds: 30)
                try client.send(request)
                let first = try client.readResponse().status
                try client.send(request)
                return [first, try client.readResponse().status]
            }
            #expect(request.utf8.count > 16 * 1024 - 120)
            #expect(statuses == [200, 200])
        }
    }

    @Test func largeHeadsPipelinedAndKeptAliveRequestsPass() async throws {
        try await withServer(configure: { $0.connectionMemoryLimit = 128 * 1024; $0.maxHeadBytes = 64 * 1024 }) { server, _ in
            let port = server.port
            let statuses = try await blocking { () throws -> [Int] in
                let client = try RawHTTPClient(port: port, timeoutSeconds: 30)
                var head = "GET /inspect HTTP/1.1\r\nHost: t\r\n"
                for index in 0..<400 { head += "X-Field-\(index): \(String(repeating: "v", count: 100))\r\n" }
                head += "\r\n"
                let second = "GET /inspect?n=2 HTTP/1.1\r\nHost: t\r\nX-A: 1\r\n\r\n"
                try client.send(head + second)
                var statuses = [try client.readResponse().status, try client.readResponse().status]
                try client.send("GET /inspect HTTP/1.1\r\nHost: t\r\nX-B: 2\r\n\r\n")
                statuses.append(try client.readResponse().status)
                return statuses
            }
            #expect(statuses == [200, 200, 200])
        }
    }
}
