import HTTPServer
import Testing

@Suite struct ConcurrencyTests {
    @Test func twoHundredParallelRequests() async throws {
        try await withServer { server, _ in
            let port = server.port
            let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let response = try await blocking {
                            let client = try RawHTTPClient(port: port, timeoutSeconds: 20)
                            let body = "request \(index)"
                            let path = index.isMultiple(of: 3) ? "/immediate" : "/echo"
                            try client.send("POST \(path) HTTP/1.1\r\nHost: test\r\n"
                                            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
                            return try client.readResponse()
                        }
                        return (index, response.status == 200 ? response.text : "status \(response.status)")
                    }
                }
                var collected: [Int: String] = [:]
                for try await (index, text) in group { collected[index] = text }
                return collected
            }
            #expect(bodies.count == 200)
            for (index, text) in bodies {
                #expect(text == (index.isMultiple(of: 3) ? "immediate" : "request \(index)"))
            }
        }
    }

    @Test func perIPLimitClosesExtraConnections() async throws {
        try await withServer(configure: { $0.perIPConnectionLimit = 2 }) { server, _ in
            let port = server.port
            let (thirdClosed, firstStillServed) = try await blocking {
                let first = try RawHTTPClient(port: port)
                let second = try RawHTTPClient(port: port)
                try first.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                _ = try first.readResponse()
                try second.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                _ = try second.readResponse()
                let third = try RawHTTPClient(port: port)
                try? third.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                let thirdClosed = third.serverClosed()
                try first.send("GET /immediate HTTP/1.1\r\nHost: test\r\n\r\n")
                return (thirdClosed, try first.readResponse().text == "immediate")
            }
            #expect(thirdClosed)
            #expect(firstStillServed)
        }
    }
}
