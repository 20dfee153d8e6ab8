#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CMicroHTTPD
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd. Requests are read in full (up to `maxBodyBytes`), then answered either
/// on the server's thread (`HTTPResponder.immediateResponse`) or by an async task while the connection waits.
public final class HTTPServer: Sendable {
    private enum Lifecycle {
        case idle
        case running(DaemonLauncher.Daemon, HeadTimeoutWatchdog?)
        case stopping
        case stopped
    }

    private struct State {
        var lifecycle = Lifecycle.idle
        var port: UInt16 = 0
    }

    private let core: ServerCore
    private let state = Mutex(State())

    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder) {
        core = ServerCore(configuration: configuration, responder: responder)
    }

    /// Binds and starts serving. Throws if the address cannot be bound or the server was already started.
    public func start() throws {
        try state.withLock { (state: inout State) throws(HTTPServerError) in
            guard case .idle = state.lifecycle else { throw .cannotStart("the server was already started") }
            let daemon = try DaemonLauncher.start(core)
            let seconds = core.configuration.headersTimeoutSeconds
            let watchdog = seconds > 0 ? HeadTimeoutWatchdog(registry: core.connections, timeout: .seconds(seconds)) : nil
            watchdog?.start()
            state.lifecycle = .running(daemon, watchdog)
            state.port = daemon.port
        }
    }

    /// The bound port (the one picked by the system when the configuration asked for 0); 0 before `start()`.
    public var port: UInt16 { state.withLock { $0.port } }

    /// Requests MHD currently holds: being received, waiting for their responder, or being sent.
    public var activeRequests: Int { core.tracker.activeRequests }

    /// Connections open right now.
    public var openConnections: Int { core.connections.count }

    /// Clean stop: stops accepting connections, lets requests in flight finish for up to `gracePeriod` (answers
    /// sent meanwhile carry `Connection: close`), answers those still waiting with `serviceUnavailable`, then
    /// stops the daemon. A second call waits for the first one to finish.
    public func shutdown(gracePeriod: Duration) async {
        let running: (DaemonLauncher.Daemon, HeadTimeoutWatchdog?)? = state.withLock { state in
            guard case .running(let daemon, let watchdog) = state.lifecycle else { return nil }
            state.lifecycle = .stopping
            return (daemon, watchdog)
        }
        guard let (daemon, watchdog) = running else {
            await waitUntilStopped()
            return
        }
        let clock = ContinuousClock()
        let listenSocket = MHD_quiesce_daemon(daemon.pointer)
        core.tracker.beginDraining()
        await waitForActiveRequests(until: clock.now + gracePeriod)
        core.tracker.refuseWaits()
        answerWaitingRequests()
        // Let the answers just queued reach their clients before the daemon closes every connection.
        await waitForActiveRequests(until: clock.now + .seconds(1))
        stop(daemon, watchdog, listenSocket: listenSocket)
        // Responders still running answer nobody now: cancelled, and waited for.
        await core.tracker.tasks.stop()
        state.withLock { $0.lifecycle = .stopped }
    }

    /// A server released while running could never be stopped again, so it stops at once (no grace period).
    deinit {
        guard case .running(let daemon, let watchdog) = state.withLock({ $0.lifecycle }) else { return }
        let listenSocket = MHD_quiesce_daemon(daemon.pointer)
        core.tracker.refuseWaits()
        answerWaitingRequests()
        stop(daemon, watchdog, listenSocket: listenSocket)
    }

    private func stop(_ daemon: DaemonLauncher.Daemon, _ watchdog: HeadTimeoutWatchdog?, listenSocket: Int32) {
        // Stopped first: it shuts sockets down by descriptor, which must not outlive the daemon's connections.
        watchdog?.stop()
        // A streamed body may have its connection suspended while it waits for data; MHD must not stop then.
        core.tracker.cancelStreams()
        core.relay.stop()
        MHD_stop_daemon(daemon.pointer)
        // A quiesced listen socket is the caller's to close, and only once the daemon's threads are gone.
        if listenSocket >= 0 { close(listenSocket) }
        daemon.core.release()
    }

    private func waitForActiveRequests(until deadline: ContinuousClock.Instant) async {
        // A cancelled shutdown still has to stop the daemon safely; it only gives up waiting.
        while core.tracker.activeRequests > 0 && ContinuousClock.now < deadline && !Task.isCancelled {
            await Self.pause(milliseconds: 5)
        }
    }

    /// MHD aborts the process if it is stopped with a connection still suspended, so this loops until none is.
    /// It ends quickly: new waits are refused by now, and a request registered just before only needs its
    /// thread to finish suspending it.
    private func answerWaitingRequests() {
        while core.tracker.waitingRequests > 0 {
            for context in core.tracker.waitingContexts() {
                context.answer(core.configuration.serviceUnavailable)
            }
            if core.tracker.waitingRequests > 0 { usleep(200) }
        }
    }

    private func waitUntilStopped() async {
        while state.withLock({ if case .stopping = $0.lifecycle { true } else { false } }) {
            await Self.pause(milliseconds: 5)
        }
    }

    /// Sleeps even when the task is cancelled (where `Task.sleep` returns at once and a loop would spin).
    private static func pause(milliseconds: Int) async {
        do {
            try await Task.sleep(for: .milliseconds(milliseconds))
        } catch {
            usleep(useconds_t(milliseconds * 1000))
        }
    }
}
