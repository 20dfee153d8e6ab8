import Foundation
import Runtime

/// Closes connections that have not sent a complete request head within `timeout` of being accepted or of
/// their previous answer (`HTTPServerConfiguration.headersTimeoutSeconds`): a client trickling a header byte
/// every few seconds, or holding idle connections, frees its slots within that time.
final class HeadTimeoutWatchdog: Sendable {
    private let registry: ConnectionRegistry
    private let timeout: Duration
    private let stopped = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(registry: ConnectionRegistry, timeout: Duration) {
        self.registry = registry
        self.timeout = timeout
    }

    func start() {
        // Checked a few times per timeout, so a connection lasts at most a little longer than it.
        let interval = min(max(timeout / 8, .milliseconds(100)), .seconds(1))
        DedicatedThread.start("http-head-timeout") { [self] in
            while stopped.wait(timeout: .now() + .milliseconds(Int(interval.components.seconds * 1000
                                                             + interval.components.attoseconds / 1_000_000_000_000_000))) == .timedOut {
                registry.shutDownStalled(waitingLongerThan: timeout)
            }
            finished.signal()
        }
    }

    /// Returns once the thread has stopped (before the daemon closes the sockets it might shut down).
    func stop() {
        stopped.signal()
        finished.wait()
    }
}
