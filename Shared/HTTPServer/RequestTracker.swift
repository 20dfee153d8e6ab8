import Runtime
import Synchronization

/// Server-wide bookkeeping for a clean shutdown: how many requests MHD still holds, and which ones sit in a
/// suspended connection (MHD aborts the process if the daemon stops while any connection is suspended).
final class RequestTracker: Sendable {
    private struct State {
        /// Set when a shutdown starts: answers then ask clients to close their connection.
        var draining = false
        /// Set when the grace period is over: no connection may be suspended any more.
        var refusingWaits = false
        var active = 0
        var waiting: [ObjectIdentifier: RequestContext] = [:]
        var streams: [ObjectIdentifier: HTTPResponseStream] = [:]
    }

    private let state = Mutex(State())
    /// The responders' tasks and the streamed bodies' producers, stopped when the server has stopped.
    let tasks = OwnedTasks("http requests")

    var activeRequests: Int { state.withLock { $0.active } }
    var waitingRequests: Int { state.withLock { $0.waiting.count } }
    var isDraining: Bool { state.withLock { $0.draining } }

    func requestStarted() { state.withLock { $0.active += 1 } }
    func requestEnded() { state.withLock { $0.active -= 1 } }

    /// Registers a request about to be suspended. Refused after `refuseWaits()`, so that no connection gets
    /// suspended once the shutdown has started answering the waiting ones.
    func beginWaiting(_ context: RequestContext) -> Bool {
        state.withLock { state in
            guard !state.refusingWaits else { return false }
            state.waiting[ObjectIdentifier(context)] = context
            return true
        }
    }

    func endWaiting(_ context: RequestContext) {
        _ = state.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(context)) }
    }

    func beginDraining() { state.withLock { $0.draining = true } }

    func refuseWaits() {
        state.withLock { state in
            state.draining = true
            state.refusingWaits = true
        }
    }

    func streamStarted(_ stream: HTTPResponseStream) {
        state.withLock { $0.streams[ObjectIdentifier(stream)] = stream }
    }

    func streamEnded(_ stream: HTTPResponseStream) {
        _ = state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    /// Cancels every response still being streamed, resuming their connections, so the daemon can stop.
    func cancelStreams() {
        for stream in state.withLock({ Array($0.streams.values) }) { stream.cancel() }
    }

    func waitingContexts() -> [RequestContext] {
        state.withLock { Array($0.waiting.values) }
    }
}
