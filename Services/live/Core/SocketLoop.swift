import CEpoll
import Foundation
import Glibc
import Runtime
import Synchronization

/// All WebSocket I/O of a `live` process on one thread: accepts, reads, the handshake, frames and writes, over
/// non-blocking sockets and epoll. Other threads hand it work with `post`; everything else (and the delegate) runs
/// on the loop thread only, which is why the mutable state needs no lock.
public final class SocketLoop: @unchecked Sendable {
    public let limits: SocketLoopLimits
    private let logger: Logger
    private var listener: Int32 = -1
    private var epoll: Int32 = -1
    private var wake: Int32 = -1
    private var connections: [UInt64: SocketConnection] = [:]
    private var byDescriptor: [Int32: UInt64] = [:]
    private var nextId: UInt64 = 1
    private var dirty: Set<UInt64> = []
    private var lastPing = ContinuousClock.now
    private let posted = Mutex<[@Sendable () -> Void]>([])
    private let stopping = Mutex(false)
    private var thread: DedicatedThread?
    public weak var delegate: (any SocketLoopDelegate)?
    public private(set) var port: UInt16 = 0

    public init(limits: SocketLoopLimits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    /// Binds and starts the loop thread.
    public func start(host: String, port: UInt16) throws {
        listener = try Self.listen(host: host, port: port)
        self.port = Self.boundPort(listener)
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        add(listener, events: EPOLLIN.rawValue)
        add(wake, events: EPOLLIN.rawValue)
        thread = DedicatedThread.start("live-sockets", stackSize: 1 << 22) { [self] in run() }
    }

    public func stop() {
        stopping.withLock { $0 = true }
        signalWake()
    }

    /// Returns once the loop thread has ended (after `stop`).
    public func join() async {
        await thread?.join()
    }

    /// Runs `work` on the loop thread soon; safe from any thread.
    public func post(_ work: @escaping @Sendable () -> Void) {
        posted.withLock { $0.append(work) }
        signalWake()
    }

    public var connectionCount: Int { connections.count }

    /// Queues a frame (loop thread only). A client whose queue is past its bound is closed with 1013 instead: a slow
    /// reader costs its own connection, never the process's memory or the other clients' latency.
    @discardableResult
    public func send(_ id: UInt64, frame: [UInt8]) -> Bool {
        guard let connection = connections[id], connection.state == .open else { return false }
        guard connection.pendingBytes + frame.count <= limits.maximumPendingBytes else {
            logger.info("closing a slow client", ["connection": "\(id)", "pending.bytes": "\(connection.pendingBytes)"])
            close(id, .tryAgainLater, reason: "Client reads too slowly")
            return false
        }
        connection.queue(frame)
        dirty.insert(id)
        return true
    }

    /// Sends a close frame and closes the socket once it is flushed (or after the grace period).
    public func close(_ id: UInt64, _ code: WebSocketCloseCode, reason: String) {
        guard let connection = connections[id], connection.state != .closing else { return }
        if connection.state == .open { connection.queue(WebSocketFrameWriter.close(code, reason: reason)) }
        connection.state = .closing
        connection.closeDeadline = .now + limits.closeGrace
        dirty.insert(id)
        delegate?.socketClosed(id)
    }

    // MARK: the loop

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while !stopping.withLock({ $0 }) {
            let count = epoll_wait(epoll, &events, Int32(events.count), 500)
            if count > 0 {
                for index in 0..<Int(count) {
                    let fd = events[index].data.fd
                    let flags = events[index].events
                    if fd == listener { acceptAll() } else if fd == wake { drainWake() } else { ready(fd, flags) }
                }
            }
            runPosted()
            flushDirty()
            tick()
        }
        for id in Array(connections.keys) { destroy(id, notify: false) }
        Glibc.close(listener)
        Glibc.close(epoll)
        Glibc.close(wake)
    }

    private func runPosted() {
        let work = posted.withLock { items -> [@Sendable () -> Void] in
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }
        for item in work { item() }
    }

    private func acceptAll() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            guard connections.count < limits.maximumConnections else {
                Glibc.close(fd)
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let id = nextId
            nextId += 1
            connections[id] = SocketConnection(id: id, fd: fd, maximumMessageSize: limits.maximumMessageSize)
            byDescriptor[fd] = id
            add(fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
        }
    }

    private func ready(_ fd: Int32, _ flags: UInt32) {
        guard let id = byDescriptor[fd], let connection = connections[id] else { return }
        if flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
            destroy(id, notify: true)
            return
        }
        if flags & EPOLLOUT.rawValue != 0 { flush(connection) }
        if flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0, connections[id] != nil { read(connection) }
    }

    private func read(_ connection: SocketConnection) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while connections[connection.id] != nil {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(connection.fd, $0.baseAddress, $0.count) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                destroy(connection.id, notify: true)
                return
            }
            if count < 0 { return }
            received(connection, buffer[0..<count])
            if count < buffer.count { return }
        }
    }

    private func received(_ connection: SocketConnection, _ bytes: ArraySlice<UInt8>) {
        switch connection.state {
        case .closing: return
        case .handshaking:
            connection.handshakeBytes += bytes
            switch WebSocketHandshake.read(connection.handshakeBytes) {
            case .incomplete: return
            case .reject(let response):
                connection.queue(Array(response.utf8))
                connection.state = .closing
                connection.closeDeadline = .now + limits.closeGrace
                dirty.insert(connection.id)
            case .upgrade(let response, let consumed, let subprotocol):
                connection.queue(Array(response.utf8))
                connection.state = .open
                dirty.insert(connection.id)
                let rest = connection.handshakeBytes[consumed...]
                connection.handshakeBytes = []
                delegate?.socketOpened(connection.id, subprotocol: subprotocol)
                if !rest.isEmpty { frames(connection, rest) }
            }
        case .open:
            frames(connection, bytes)
        }
    }

    private func frames(_ connection: SocketConnection, _ bytes: ArraySlice<UInt8>) {
        connection.parser.append(bytes)
        do {
            while connection.state == .open, let message = try connection.parser.next() {
                switch message {
                case .text(let text): delegate?.socketReceived(connection.id, text: text)
                case .binary(let bytes):
                    // parse-server reads a binary message as its text; so does this server.
                    delegate?.socketReceived(connection.id, text: String(decoding: bytes, as: UTF8.self))
                case .ping(let payload):
                    connection.queue(WebSocketFrameWriter.pong(payload))
                    dirty.insert(connection.id)
                case .pong: connection.awaitingPong = false
                case .close(let code, _):
                    let answer = code.flatMap(WebSocketCloseCode.init(rawValue:)) ?? .normal
                    close(connection.id, answer, reason: "")
                }
            }
        } catch {
            logger.debug("closing a connection on a protocol error", ["connection": "\(connection.id)", "error": error.reason])
            close(connection.id, error.code, reason: error.reason)
        }
    }

    private func flushDirty() {
        for id in dirty { if let connection = connections[id] { flush(connection) } }
        dirty.removeAll(keepingCapacity: true)
    }

    private func flush(_ connection: SocketConnection) {
        while connection.pendingBytes > 0 {
            let written = connection.outbound.withUnsafeBytes {
                Glibc.send(connection.fd, $0.baseAddress! + connection.outboundStart, connection.pendingBytes, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    if !connection.wantsWritable {
                        connection.wantsWritable = true
                        modify(connection.fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLOUT.rawValue)
                    }
                    return
                }
                if errno == EINTR { continue }
                destroy(connection.id, notify: true)
                return
            }
            connection.outboundStart += written
        }
        if connection.wantsWritable {
            connection.wantsWritable = false
            modify(connection.fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
        }
        if connection.state == .closing { destroy(connection.id, notify: false) }
    }

    private func tick() {
        let now = ContinuousClock.now
        for connection in connections.values where connection.state == .closing {
            if let deadline = connection.closeDeadline, deadline < now { destroy(connection.id, notify: false) }
        }
        guard now - lastPing >= limits.pingInterval else { return }
        lastPing = now
        for connection in connections.values where connection.state == .open {
            if connection.awaitingPong {
                close(connection.id, .policyViolation, reason: "No pong to the last ping")
                continue
            }
            connection.awaitingPong = true
            connection.queue(WebSocketFrameWriter.ping())
            dirty.insert(connection.id)
        }
        flushDirty()
    }

    private func destroy(_ id: UInt64, notify: Bool) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        byDescriptor[connection.fd] = nil
        epoll_ctl(epoll, EPOLL_CTL_DEL, connection.fd, nil)
        Glibc.close(connection.fd)
        if notify && connection.state == .open { delegate?.socketClosed(id) }
    }

    // MARK: descriptors

    private func add(_ fd: Int32, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
    }

    private func modify(_ fd: Int32, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event)
    }

    private func signalWake() {
        var one: UInt64 = 1
        _ = Glibc.write(wake, &one, 8)
    }

    private func drainWake() {
        var value: UInt64 = 0
        _ = Glibc.read(wake, &value, 8)
    }
}
