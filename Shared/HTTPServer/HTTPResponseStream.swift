import Runtime
import Synchronization

/// A response body produced while it is sent, for bodies too large to hold: the producer writes parts, the
/// server sends them as the client takes them. At most about `bufferLimit` bytes wait between the two; the
/// producer is held back beyond that, and the connection is suspended (not polled) while the buffer is empty.
public final class HTTPResponseStream: Sendable, Equatable {
    public typealias Producer = @Sendable (Writer) async throws -> Void

    /// What the producer writes to. `write` throws `Cancelled` once the client has gone.
    public struct Writer: Sendable {
        let stream: HTTPResponseStream

        public func write(_ bytes: [UInt8]) async throws(Cancelled) {
            try await stream.enqueue(bytes)
        }
    }

    public struct Cancelled: Error, Sendable {}

    /// The exact number of bytes the producer writes (sent as `Content-Length`).
    public let length: Int
    let bufferLimit: Int
    let producer: Producer

    private struct State {
        var chunks: [[UInt8]] = []
        var headOffset = 0
        var buffered = 0
        var finished = false
        var failed = false
        var cancelled = false
        var connection: ConnectionHandle?
        /// Set while the connection is suspended because the buffer ran dry.
        var paused: ConnectionHandle?
        var writer: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let trackerBox = Mutex<RequestTracker?>(nil)

    /// The server's bookkeeping, so a shutdown can cancel streams still being sent.
    var tracker: RequestTracker? {
        get { trackerBox.withLock { $0 } }
        set { trackerBox.withLock { $0 = newValue } }
    }

    public init(length: Int, bufferLimit: Int = 2 << 20, producer: @escaping Producer) {
        self.length = length
        self.bufferLimit = max(1, bufferLimit)
        self.producer = producer
    }

    public static func == (lhs: HTTPResponseStream, rhs: HTTPResponseStream) -> Bool { lhs === rhs }

    /// Starts the producer; called once, when the response is queued on `connection`.
    func start(on connection: ConnectionHandle, tasks: OwnedTasks) {
        state.withLock { $0.connection = connection }
        tasks.spawn { [self] in
            do {
                try await producer(Writer(stream: self))
                finish(failed: false)
            } catch {
                finish(failed: true)
            }
        }
    }

    private func enqueue(_ bytes: [UInt8]) async throws(Cancelled) {
        let mustWait = try state.withLock { (state: inout State) throws(Cancelled) -> Bool in
            if state.cancelled { throw Cancelled() }
            if !bytes.isEmpty {
                state.chunks.append(bytes)
                state.buffered += bytes.count
            }
            resumeIfPaused(&state)
            return state.buffered >= bufferLimit
        }
        guard mustWait else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wakeNow = state.withLock { state -> Bool in
                if state.cancelled || state.buffered < bufferLimit { return true }
                state.writer = continuation
                return false
            }
            if wakeNow { continuation.resume() }
        }
        if state.withLock({ $0.cancelled }) { throw Cancelled() }
    }

    private func finish(failed: Bool) {
        state.withLock { state in
            state.finished = true
            state.failed = failed
            resumeIfPaused(&state)
        }
    }

    /// The client is gone or the server stops: the producer's next write throws, a suspended connection resumes.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.failed = true
            resumeIfPaused(&state)
            wakeWriter(&state)
        }
    }

    /// MHD's reader, on the thread serving the connection: copies what is buffered, or suspends the connection
    /// until the producer writes (returning 0, which MHD then asks again after the resume).
    func read(into buffer: UnsafeMutableRawPointer, max: Int) -> Int {
        state.withLock { state in
            if state.failed { return Int(CMHDReader.error) }
            if state.buffered == 0 {
                if state.finished { return Int(CMHDReader.endOfStream) }
                guard let connection = state.connection else { return Int(CMHDReader.error) }
                connection.suspend()
                state.paused = connection
                return 0
            }
            var copied = 0
            while copied < max, !state.chunks.isEmpty {
                let chunk = state.chunks[0]
                let count = min(max - copied, chunk.count - state.headOffset)
                chunk.withUnsafeBytes { source in
                    (buffer + copied).copyMemory(from: source.baseAddress! + state.headOffset, byteCount: count)
                }
                copied += count
                state.headOffset += count
                if state.headOffset == chunk.count {
                    state.chunks.removeFirst()
                    state.headOffset = 0
                }
            }
            state.buffered -= copied
            if state.buffered < bufferLimit { wakeWriter(&state) }
            return copied
        }
    }

    var isPaused: Bool { state.withLock { $0.paused != nil } }

    private func resumeIfPaused(_ state: inout State) {
        guard let connection = state.paused else { return }
        state.paused = nil
        connection.resume()
    }

    private func wakeWriter(_ state: inout State) {
        guard let writer = state.writer else { return }
        state.writer = nil
        writer.resume()
    }
}
