#if canImport(Glibc)
import Glibc
#endif
import HTTPServer

enum RawClientError: Error {
    case cannotConnect(Int32)
    case timedOut
    case closedByPeer
    case failed(operation: String, errno: Int32)
    case malformed(String)
}

struct RawResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking HTTP/1.1 client on a plain socket, to send exactly the bytes a test needs (malformed or
/// pipelined requests, several requests on one connection). Every read and write has a timeout so a test can
/// fail but never hang. Use it from one thread only (see `blocking`).
final class RawHTTPClient {
    private let socketDescriptor: Int32
    private var received: [UInt8] = []

    init(port: UInt16, host: String = "127.0.0.1", timeoutSeconds: Int = 30) throws {
        // Connected before being stored: deinit closes the descriptor, so a failed connect must not leave one
        // here (closing it twice could close another test's socket that reused the number).
        socketDescriptor = try Self.connectedSocket(port: port, host: host, timeoutSeconds: timeoutSeconds)
    }

    private static func connectedSocket(port: UInt16, host: String, timeoutSeconds: Int) throws -> Int32 {
        let isIPv6 = host.contains(":")
        let descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawClientError.cannotConnect(errno) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // On Linux the send timeout also bounds connect().
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw RawClientError.cannotConnect(code)
        }
        return descriptor
    }

    deinit { close(socketDescriptor) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(socketDescriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { throw RawClientError.timedOut }
                throw RawClientError.failed(operation: "send", errno: errno)
            }
            offset += written
        }
    }

    /// Reads one response. Interim `100 Continue` responses are skipped. `toHead` means no body follows
    /// whatever the headers say.
    func readResponse(toHead: Bool = false) throws -> RawResponse {
        while true {
            let head = try readHead()
            let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
            let statusParts = lines[0].split(separator: " ", maxSplits: 2)
            guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/"), let status = Int(statusParts[1]) else {
                throw RawClientError.malformed(String(lines[0]))
            }
            var headers = HTTPHeaders()
            for line in lines.dropFirst() where !line.isEmpty {
                guard let colon = line.firstIndex(of: ":") else { throw RawClientError.malformed(String(line)) }
                headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces())
            }
            if (100..<200).contains(status) { continue }
            let body: [UInt8]
            if toHead || status == 204 || status == 304 {
                body = []
            } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
                body = try readBytes(length)
            } else if headers["Transfer-Encoding"]?.lowercased() == "chunked" {
                body = try readChunkedBody()
            } else {
                body = try readUntilClosed()
            }
            return RawResponse(status: status, headers: headers, body: body)
        }
    }

    /// Reads a response head alone (for interim `100 Continue` responses) and returns its status line.
    func readHeadOnly() throws -> String {
        String(try readHead().prefix { $0 != "\r" })
    }

    /// Everything until the server closes the connection.
    func readUntilClosed() throws -> [UInt8] {
        while try fill() {}
        defer { received = [] }
        return received
    }

    /// True when the server has closed the connection (or reset it) without sending anything more.
    func serverClosed() -> Bool {
        do {
            return try !fill() && received.isEmpty
        } catch RawClientError.closedByPeer {
            return true
        } catch RawClientError.failed(_, let code) where code == ECONNRESET {
            return true
        } catch {
            return false
        }
    }

    /// Whether the server has closed the connection, without waiting for it: false while nothing has come.
    func closedWithoutWaiting() -> Bool {
        guard received.isEmpty else { return false }
        var byte: UInt8 = 0
        let count = recv(socketDescriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count == 0 { return true }
        return count < 0 && (errno == ECONNRESET || errno == EPIPE)
    }

    private func readHead() throws -> String {
        let terminator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = received.firstRange(of: terminator) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                received.removeSubrange(..<end.upperBound)
                return head
            }
            guard try fill() else { throw RawClientError.closedByPeer }
        }
    }

    private func readLine() throws -> String {
        while true {
            if let end = received.firstRange(of: [13, 10]) {
                let line = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                received.removeSubrange(..<end.upperBound)
                return line
            }
            guard try fill() else { throw RawClientError.closedByPeer }
        }
    }

    private func readBytes(_ count: Int) throws -> [UInt8] {
        while received.count < count {
            guard try fill() else { throw RawClientError.closedByPeer }
        }
        let bytes = Array(received[..<count])
        received.removeSubrange(..<count)
        return bytes
    }

    private func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeText = try readLine().split(separator: ";")[0]
            guard let size = Int(sizeText, radix: 16) else { throw RawClientError.malformed(String(sizeText)) }
            if size == 0 {
                while try !readLine().isEmpty {}
                return body
            }
            body += try readBytes(size)
            _ = try readLine()
        }
    }

    /// Appends what the socket has; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socketDescriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += chunk[..<count]
                return true
            }
            if count == 0 { return false }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: throw RawClientError.timedOut
            default: throw RawClientError.failed(operation: "recv", errno: errno)
            }
        }
    }
}

private extension Substring {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
