#if canImport(Glibc)
import Glibc
#endif
import CMicroHTTPD
import Foundation

/// Hands a WebSocket upgrade to the upstream: the request head goes to it as it came, its answer goes back to the
/// client (MHD sends the 101 itself, with the upstream's headers, `Sec-WebSocket-Accept` included), and from then on
/// `UpgradeRelay` copies bytes both ways. The upstream speaks the protocol; this server only carries it.
enum UpgradeProxy {
    /// What the upgrade callback needs: the upstream socket, already past its 101.
    final class Pending {
        let upstream: Int32
        let relay: UpgradeRelay
        let leftover: [UInt8]

        init(upstream: Int32, relay: UpgradeRelay, leftover: [UInt8]) {
            self.upstream = upstream
            self.relay = relay
            self.leftover = leftover
        }
    }

    static func begin(_ upstream: UpgradeUpstream, relay: UpgradeRelay, _ head: HTTPRequest,
                      on connection: OpaquePointer) -> MHD_Result {
        guard let fd = connect(upstream) else {
            return MHDResponseWriter.queue(.json(status: 503, #"{"code":100,"error":"LiveQuery server unavailable."}"#),
                                           on: connection, closeConnection: true)
        }
        var request = "GET \(head.path) HTTP/1.1\r\n"
        for (name, value) in head.headers where !value.contains("\r") && !value.contains("\n") {
            request += "\(name): \(value)\r\n"
        }
        request += "\r\n"
        guard writeAll(fd, Array(request.utf8)), let answer = readHead(fd) else {
            close(fd)
            return MHDResponseWriter.queue(.json(status: 502, #"{"code":100,"error":"LiveQuery server unavailable."}"#),
                                           on: connection, closeConnection: true)
        }
        guard answer.status == 101 else {
            close(fd)
            return MHDResponseWriter.queue(HTTPResponse(status: answer.status, headers: HTTPHeaders(answer.headers), body: []),
                                           on: connection, closeConnection: true)
        }
        let pending = Unmanaged.passRetained(Pending(upstream: fd, relay: relay, leftover: answer.leftover))
        guard let response = MHD_create_response_for_upgrade(mhdUpgradeHandler, pending.toOpaque()) else {
            pending.release()
            close(fd)
            return .NO
        }
        defer { MHD_destroy_response(response) }
        for (name, value) in answer.headers where name.lowercased() != "content-length" {
            _ = MHD_add_response_header(response, name, value)
        }
        let queued = MHD_queue_response(connection, 101, response)
        if queued != .YES {
            pending.release()
            close(fd)
        }
        return queued
    }

    private static func connect(_ upstream: UpgradeUpstream) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(upstream.host, String(upstream.port), &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(found) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            let fd = socket(current.pointee.ai_family, current.pointee.ai_socktype, current.pointee.ai_protocol)
            if fd >= 0 {
                var timeout = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                if Glibc.connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 {
                    var one: Int32 = 1
                    setsockopt(fd, Int32(IPPROTO_TCP), 1 /* TCP_NODELAY */, &one, socklen_t(MemoryLayout<Int32>.size))
                    return fd
                }
                close(fd)
            }
            entry = current.pointee.ai_next
        }
        return nil
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    private struct Answer {
        var status: Int
        var headers: [(String, String)]
        var leftover: [UInt8]
    }

    private static func readHead(_ fd: Int32) -> Answer? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 16_384 {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            bytes += buffer[0..<count]
            guard let end = bytes.indices.dropLast(3).first(where: {
                bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
            }) else { continue }
            let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
            let statusLine = lines[0].split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
            let headers = lines.dropFirst().compactMap { line -> (String, String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            return Answer(status: status, headers: headers, leftover: Array(bytes[(end + 4)...]))
        }
        return nil
    }
}

/// MHD sent the 101: the client socket now belongs to the relay (closed through `MHD_upgrade_action` only).
let mhdUpgradeHandler: MHD_UpgradeHandler = { cls, _, _, extraIn, extraInSize, sock, urh in
    guard let cls, let urh else { return }
    let pending = Unmanaged<UpgradeProxy.Pending>.fromOpaque(cls).takeRetainedValue()
    let early = extraInSize > 0 && extraIn != nil
        ? Array(UnsafeRawBufferPointer(start: extraIn, count: extraInSize)) : []
    pending.relay.add(client: sock, upgrade: urh, upstream: pending.upstream, toUpstream: early, toClient: pending.leftover)
}
