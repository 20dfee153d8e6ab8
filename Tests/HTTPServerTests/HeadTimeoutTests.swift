#if canImport(Glibc)
import Glibc
#endif
import HTTPServer
import Testing

/// `headersTimeoutSeconds` closes a connection that trickles its head byte by byte (MHD's own timeout only
/// counts silence), and one left idle after its answer, while requests in progress are left alone.
@Suite struct HeadTimeoutTests {
    @Test func aTricklingHeadIsClosedAtTheHeadersTimeout() async throws {
        try await withServer(configure: { $0.headersTimeoutSeconds = 1 }) { server, _ in
            let port = server.port
            let (bytesSent, closed) = try await blocking { () throws -> (Int, Bool) in
                let client = try RawHTTPClient(port: port, timeoutSeconds: 30)
                let head = Array("GET /immediate HTTP/1.1\r\nHost: t\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 100)
                var sent = 0
                // A byte every 200 ms, well inside MHD's idle timeout, for at most 10 s.
                for byte in head {
                    do {
                        try client.send([byte])
                    } catch {
                        return (sent, true)
                    }
                    sent += 1
                    usleep(200_000)
                    if client.closedWithoutWaiting() { return (sent, true) }
                }
                return (sent, false)
            }
            print("a trickling head was closed after \(bytesSent) bytes, one per 200 ms")
            #expect(closed)
            #expect(await eventually { server.openConnections == 0 })
        }
    }

    @Test func anIdleKeptAliveConnectionIsClosedButASlowAnswerIsNot() async throws {
        try await withServer(configure: { $0.headersTimeoutSeconds = 1 }) { server, _ in
            let port = server.port
            let (first, slow, closedAfterIdle) = try await blocking { () throws -> (Int, Int, Bool) in
                let client = try RawHTTPClient(port: port, timeoutSeconds: 30)
                try client.send("GET /immediate HTTP/1.1\r\nHost: t\r\n\r\n")
                let first = try client.readResponse().status
                // A request whose answer takes longer than the timeout: in progress, so not closed.
                try client.send("GET /slow?ms=2500 HTTP/1.1\r\nHost: t\r\n\r\n")
                let slow = try client.readResponse().status
                // Then idle: closed within about a second.
                var closed = false
                for _ in 0..<50 where !closed {
                    usleep(100_000)
                    closed = client.closedWithoutWaiting()
                }
                return (first, slow, closed)
            }
            #expect(first == 200 && slow == 200)
            #expect(closedAfterIdle)
        }
    }

    @Test func withoutTheSettingMHDsIdleTimeoutAloneApplies() async throws {
        try await withServer { server, _ in
            let port = server.port
            let stillOpen = try await blocking { () throws -> Bool in
                let client = try RawHTTPClient(port: port, timeoutSeconds: 30)
                for byte in Array("GET /immediate HTTP/1.1\r\n".utf8) {
                    try client.send([byte])
                    usleep(100_000)
                }
                return !client.closedWithoutWaiting()
            }
            #expect(stillOpen)
        }
    }
}
