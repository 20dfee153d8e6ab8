import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A POST with no `Content-Type` at all, as the Swift SDK uploads a file without a mime type. URLSession on
/// Linux adds `application/x-www-form-urlencoded` to any body, so these go over a plain socket.
enum FilesRawUpload {
    static func post(_ path: String, headers: [String: String], body: Data) throws -> Reply {
        let (fd, url) = try connect(path)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // The server may answer (413) and close before the whole body is sent: stop sending, read its answer.
        sendAll(fd, head(url, contentLength: body.count, headers: headers.merging(["Connection": "close"]) { $1 }) + body)
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
        let (fd, url) = try connect(path)
        defer { close(fd) }
        sendAll(fd, head(url, contentLength: declaredLength, headers: headers) + sent)
        // Give the gateway time to pass the first parts on before the connection drops.
        usleep(500_000)
    }

    private static func connect(_ path: String) throws -> (Int32, URL) {
        let url = URL(string: TestStack.serverURL + path)!
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.socket }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(url.port ?? 80).bigEndian
        address.sin_addr.s_addr = inet_addr(url.host ?? "127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure.connect
        }
        return (fd, url)
    }

    private static func head(_ url: URL, contentLength: Int, headers: [String: String]) -> Data {
        let target = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        var head = "POST \(target) HTTP/1.1\r\nHost: \(url.host ?? "127.0.0.1"):\(url.port ?? 80)\r\n"
        head += "Content-Length: \(contentLength)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        return Data((head + "\r\n").utf8)
    }

    /// Sends until done or the peer stops taking bytes.
    private static func sendAll(_ fd: Int32, _ request: Data) {
        request.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let count = send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if count <= 0 { break }
                sent += count
            }
        }
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
