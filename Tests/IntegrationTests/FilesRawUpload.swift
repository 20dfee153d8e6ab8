import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A POST with no `Content-Type` at all, as the Swift SDK uploads a file without a mime type. URLSession on
/// Linux adds `application/x-www-form-urlencoded` to any body, so these go over a plain socket.
enum FilesRawUpload {
    static func post(_ path: String, headers: [String: String], body: Data) throws -> Reply {
        let url = URL(string: TestStack.serverURL + path)!
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.socket }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(url.port ?? 80).bigEndian
        address.sin_addr.s_addr = inet_addr(url.host ?? "127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure.connect }
        let target = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        var head = "POST \(target) HTTP/1.1\r\nHost: \(url.host ?? "127.0.0.1"):\(url.port ?? 80)\r\n"
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let request = Data((head + "\r\n").utf8) + body
        // The server may answer (413) and close before the whole body is sent: stop sending, read its answer.
        request.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let count = send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if count <= 0 { break }
                sent += count
            }
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return try parse(received)
    }

    /// Declares `declaredLength` bytes, sends only `sent`, then closes the connection: an interrupted upload.
    static func cutShort(_ path: String, headers: [String: String], declaredLength: Int, sent: Data) throws {
        let url = URL(string: TestStack.serverURL + path)!
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.socket }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(url.port ?? 80).bigEndian
        address.sin_addr.s_addr = inet_addr(url.host ?? "127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure.connect }
        let target = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        var head = "POST \(target) HTTP/1.1\r\nHost: \(url.host ?? "127.0.0.1"):\(url.port ?? 80)\r\n"
        head += "Content-Length: \(declaredLength)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let request = Data((head + "\r\n").utf8) + sent
        request.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let count = send(fd, raw.baseAddress! + done, raw.count - done, Int32(MSG_NOSIGNAL))
                if count <= 0 { break }
                done += count
            }
        }
        // Give the gateway time to pass the first parts on before the connection drops.
        usleep(500_000)
    }

    private static func parse(_ data: Data) throws -> Reply {
        guard let split = data.range(of: Data("\r\n\r\n".utf8)) else { throw Failure.malformed }
        let lines = String(decoding: data[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw Failure.malformed
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, headers: headers, body: Data(data[split.upperBound...]))
    }

    enum Failure: Error { case socket, connect, malformed }
}
