import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Plain TCP connections a test opens to the gateway from a chosen loopback source address (Linux routes all of
/// 127.0.0.0/8 to the loopback interface) and holds, idle or trickling a request head, as a misbehaving client
/// would. Connecting and sending never wait more than two seconds; everything is closed on release.
final class HeldConnections {
    private(set) var descriptors: [Int32] = []
    /// Connections the kernel refused or that did not complete in time.
    private(set) var failedToConnect = 0

    init(count: Int, port: UInt16, from source: String) {
        descriptors.reserveCapacity(count)
        for _ in 0..<count {
            if let descriptor = Self.connect(port: port, from: source) {
                descriptors.append(descriptor)
            } else {
                failedToConnect += 1
            }
        }
    }

    deinit { closeAll() }

    func closeAll() {
        for descriptor in descriptors { close(descriptor) }
        descriptors.removeAll()
    }

    /// Sends `bytes` on every connection without waiting; returns how many took them.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Int {
        descriptors.reduce(0) { taken, descriptor in
            taken + (Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) == bytes.count ? 1 : 0)
        }
    }

    /// Connections the server has not closed (nothing to read and no end of stream).
    var stillOpen: Int {
        descriptors.reduce(0) { open, descriptor in
            var byte: UInt8 = 0
            let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            let isOpen = count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
            return open + (isOpen ? 1 : 0)
        }
    }

    private static func connect(port: UInt16, from source: String) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) } }
        let connected = bound == 0 && withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, size) }
        } == 0
        guard connected else {
            close(descriptor)
            return nil
        }
        return descriptor
    }
}
