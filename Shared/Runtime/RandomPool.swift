#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Random bytes from the system's generator, read 4 KB at a time from one `/dev/urandom` descriptor kept open and
/// handed out in slices. Ids are drawn several times per request; a system call per id (and the kernel setting
/// up its generator for each) was a tenth of the gateway's CPU. Bytes are never handed out twice.
public enum RandomPool {
    private struct State: ~Copyable {
        var descriptor: Int32 = -1
        var buffer = [UInt8](repeating: 0, count: 4096)
        var offset = 4096
    }

    private static let state = Mutex(State())

    /// `count` bytes (at most 4096); from `Hex.randomBytes` if `/dev/urandom` cannot be read.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count <= 4096)
        let taken: [UInt8]? = state.withLock { state in
            if state.offset + count > state.buffer.count {
                guard refill(&state) else { return nil }
            }
            defer { state.offset += count }
            return Array(state.buffer[state.offset..<(state.offset + count)])
        }
        return taken ?? Hex.randomBytes(count)
    }

    private static func refill(_ state: inout State) -> Bool {
        #if canImport(Glibc)
        if state.descriptor < 0 { state.descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC) }
        guard state.descriptor >= 0 else { return false }
        var filled = 0
        let size = state.buffer.count
        let descriptor = state.descriptor
        let complete = state.buffer.withUnsafeMutableBytes { buffer -> Bool in
            while filled < size {
                let count = read(descriptor, buffer.baseAddress! + filled, size - filled)
                if count > 0 {
                    filled += count
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
        guard complete else { return false }
        state.offset = 0
        return true
        #else
        return false
        #endif
    }
}
