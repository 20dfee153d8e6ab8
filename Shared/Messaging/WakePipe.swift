import Glibc

/// Lets other threads wake the connection thread out of `poll(2)` when they queue work for it.
final class WakePipe: Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { fatalError("pipe() failed: errno \(errno)") }
        for fd in ends { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)   // a full pipe already means "wake up"
    }

    var isSignalled: Bool {
        var fds = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, 0) > 0
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }
}
