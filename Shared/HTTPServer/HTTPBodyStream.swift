import Synchronization

/// A request body delivered in parts of `partBytes` (the last one may be shorter). At most one full part waits
/// for the reader; once a little more has arrived behind it the connection is suspended until the reader takes
/// it, so memory per upload stays near one part whatever the body size.
public final class HTTPBodyStream: Sendable {
    public enum Failure: Error, Equatable, Sendable {
        /// The body went over the server's `maxBodyBytes` (only possible without `Content-Length`).
        case tooLarge
        /// The client went away before sending the whole body.
        case incomplete
    }

    public let partBytes: Int
    /// With a part waiting for the reader, the connection is suspended once this much more has arrived.
    private var pauseThreshold: Int { min(partBytes, 64 * 1024) }

    private struct State {
        var ready: [UInt8]?
        var filling: [UInt8] = []
        var finished = false
        var failure: Failure?
        /// The reader stopped reading (it answered early): further bytes are dropped.
        var abandoned = false
        /// The connection is suspended because `ready` and `filling` are both full.
        var paused = false
        var reader: CheckedContinuation<Void, Never>?
    }

    private let connection: ConnectionHandle?
    private let state = Mutex(State())

    init(partBytes: Int, connection: ConnectionHandle?) {
        self.partBytes = max(1, partBytes)
        self.connection = connection
    }

    /// The next part, or nil once the body is complete.
    public func next() async throws(Failure) -> [UInt8]? {
        while true {
            let outcome: Result<[UInt8]?, Failure>? = state.withLock { state in
                if let failure = state.failure { return .failure(failure) }
                promote(&state)
                if let part = state.ready {
                    state.ready = nil
                    promote(&state)
                    resumeIfPaused(&state)
                    return .success(part)
                }
                if state.finished { return .success(nil) }
                return nil
            }
            if let outcome { return try outcome.get() }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wakeNow = state.withLock { state -> Bool in
                    if state.ready != nil || state.finished || state.failure != nil { return true }
                    state.reader = continuation
                    return false
                }
                if wakeNow { continuation.resume() }
            }
        }
    }

    /// Reads everything that is left into one array (for bodies that must be whole, such as JSON).
    public func collect() async throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        while let part = try await next() { bytes += part }
        return bytes
    }

    // MARK: The server's side, from the thread serving the connection.

    /// Takes bytes from MHD; suspends the connection when the reader is a part behind.
    func append(_ chunk: UnsafeRawBufferPointer) {
        state.withLock { state in
            guard !state.abandoned, state.failure == nil else { return }
            state.filling.append(contentsOf: chunk)
            promote(&state)
            if state.ready != nil && state.filling.count >= pauseThreshold, let connection, !state.paused {
                // Under the lock, so a reader taking a part now sees `paused` and resumes exactly once.
                connection.suspend()
                state.paused = true
            }
            wakeReader(&state)
        }
    }

    func finish() {
        state.withLock { state in
            state.finished = true
            wakeReader(&state)
        }
    }

    func fail(_ failure: Failure) {
        state.withLock { state in
            // A client leaving after sending everything does not spoil the body.
            guard !state.finished, state.failure == nil else { return }
            state.failure = failure
            state.ready = nil
            state.filling = []
            wakeReader(&state)
        }
    }

    /// The reader has answered: drop what is buffered and what still comes, and let the client finish sending.
    func abandon() {
        state.withLock { state in
            state.abandoned = true
            state.ready = nil
            state.filling = []
            resumeIfPaused(&state)
        }
    }

    var isFinished: Bool { state.withLock { $0.finished } }

    /// Moves exactly one part (or the last, shorter one) from `filling` to `ready` when there is room.
    private func promote(_ state: inout State) {
        guard state.ready == nil, state.filling.count >= partBytes || (state.finished && !state.filling.isEmpty) else {
            return
        }
        if state.filling.count <= partBytes {
            state.ready = state.filling
            state.filling = []
        } else {
            state.ready = Array(state.filling[..<partBytes])
            state.filling.removeFirst(partBytes)
        }
    }

    private func resumeIfPaused(_ state: inout State) {
        guard state.paused, let connection else { return }
        state.paused = false
        connection.resume()
    }

    private func wakeReader(_ state: inout State) {
        guard let reader = state.reader else { return }
        state.reader = nil
        reader.resume()
    }
}
