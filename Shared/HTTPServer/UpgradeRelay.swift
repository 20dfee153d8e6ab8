#if canImport(Glibc)
import Glibc
#endif
import CMicroHTTPD
import Foundation
import Runtime
import Synchronization

/// Copies bytes both ways between upgraded client sockets and their upstream sockets, on one thread of its own
/// (poll(2)). Each direction buffers at most `bufferLimit` bytes: past it the relay stops reading that side
/// until the other drains, so a slow reader slows only its own pair. When either side ends, both are closed (the
/// client's through `MHD_upgrade_action`, as MHD requires).
final class UpgradeRelay: @unchecked Sendable {
    static let bufferLimit = 256 * 1024

    /// Touched on the relay thread only, once added.
    private final class Pair {
        let client: Int32
        let upstream: Int32
        let upgrade: OpaquePointer
        var toUpstream: [UInt8]
        var toClient: [UInt8]
        init(client: Int32, upstream: Int32, upgrade: OpaquePointer, toUpstream: [UInt8], toClient: [UInt8]) {
            self.client = client
            self.upstream = upstream
            self.upgrade = upgrade
            self.toUpstream = toUpstream
            self.toClient = toClient
        }
    }

    private struct Incoming: @unchecked Sendable { let pair: Pair }

    private let incoming = Mutex<[Incoming]>([])
    private let stopping = Mutex(false)
    private let finished = Mutex(false)
    private var pairs: [Pair] = []
    private var wake: (read: Int32, write: Int32) = (-1, -1)
    private var thread: DedicatedThread?

    init() {}

    func start() {
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        wake = (fds[0], fds[1])
        thread = DedicatedThread.start("upgrade-relay") { [self] in run() }
    }

    /// Ends every relayed connection and returns once the thread is gone (MHD must not stop before).
    func stop() {
        guard thread != nil else { return }
        stopping.withLock { $0 = true }
        signal()
        while !finished.withLock({ $0 }) { usleep(1_000) }
    }

    func add(client: Int32, upgrade: OpaquePointer, upstream: Int32, toUpstream: [UInt8], toClient: [UInt8]) {
        for fd in [client, upstream] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let pair = Pair(client: client, upstream: upstream, upgrade: upgrade, toUpstream: toUpstream, toClient: toClient)
        incoming.withLock { $0.append(Incoming(pair: pair)) }
        signal()
    }

    private func signal() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !stopping.withLock({ $0 }) {
            pairs += incoming.withLock { items in defer { items.removeAll() }; return items.map(\.pair) }
            var polled = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            for pair in pairs {
                polled.append(pollfd(fd: pair.client, events: events(reading: pair.toUpstream, writing: pair.toClient), revents: 0))
                polled.append(pollfd(fd: pair.upstream, events: events(reading: pair.toClient, writing: pair.toUpstream), revents: 0))
            }
            guard poll(&polled, nfds_t(polled.count), 1_000) > 0 else { continue }
            if polled[0].revents != 0 { while read(wake.read, &buffer, buffer.count) > 0 {} }
            var ended: [Int] = []
            for (index, pair) in pairs.enumerated() {
                let client = polled[1 + index * 2].revents, upstream = polled[2 + index * 2].revents
                var open = move(from: pair.client, flags: client, into: &pair.toUpstream, &buffer)
                open = open && move(from: pair.upstream, flags: upstream, into: &pair.toClient, &buffer)
                open = open && flush(&pair.toClient, to: pair.client) && flush(&pair.toUpstream, to: pair.upstream)
                if !open { ended.append(index) }
            }
            for index in ended.reversed() { finish(pairs.remove(at: index)) }
        }
        for pair in pairs { finish(pair) }
        pairs = []
        finished.withLock { $0 = true }
    }

    private func events(reading pending: [UInt8], writing outgoing: [UInt8]) -> Int16 {
        var events: Int16 = 0
        if pending.count < Self.bufferLimit { events |= Int16(POLLIN) }
        if !outgoing.isEmpty { events |= Int16(POLLOUT) }
        return events
    }

    /// Reads what `fd` has into `pending`; false when the side has ended.
    private func move(from fd: Int32, flags: Int16, into pending: inout [UInt8], _ buffer: inout [UInt8]) -> Bool {
        if flags & Int16(POLLERR | POLLNVAL) != 0 { return false }
        guard flags & Int16(POLLIN | POLLHUP) != 0, pending.count < Self.bufferLimit else { return true }
        let count = read(fd, &buffer, buffer.count)
        if count > 0 {
            pending += buffer[0..<count]
            return true
        }
        return count < 0 && (errno == EAGAIN || errno == EINTR)
    }

    private func flush(_ outgoing: inout [UInt8], to fd: Int32) -> Bool {
        guard !outgoing.isEmpty else { return true }
        let written = outgoing.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if written > 0 {
            outgoing.removeFirst(written)
            return true
        }
        return written < 0 && (errno == EAGAIN || errno == EINTR)
    }

    private func finish(_ pair: Pair) {
        close(pair.upstream)
        _ = CMHD_upgrade_close(pair.upgrade)
    }
}
