import Dispatch
import Foundation
import Synchronization

/// Waits for SIGTERM or SIGINT, so a service can drain and stop cleanly instead of dying mid-request.
public enum ShutdownSignal {
    /// Suspends until the process receives SIGTERM or SIGINT; returns the signal's name ("cancelled" when the
    /// waiting task is cancelled first).
    public static func wait() async -> String {
        await next() ?? "cancelled"
    }

    /// Waits for the signal while `work` runs beside it, each in a child task; at the signal (or once the caller
    /// is cancelled) the work still running is cancelled and awaited. Returns the signal's name.
    public static func wait(whileRunning work: [@Sendable () async -> Void]) async -> String {
        await withTaskGroup(of: String?.self) { group in
            for job in work {
                group.addTask {
                    await job()
                    return nil
                }
            }
            group.addTask { await wait() }
            var signal = "cancelled"
            while let finished = await group.next() {
                guard let name = finished else { continue }
                signal = name
                break
            }
            group.cancelAll()
            return signal
        }
    }

    /// Runs `body`; at SIGTERM or SIGINT meanwhile, `onSignal` runs (to make `body` finish: end the stream it reads).
    /// The wait for the signal ends with `body`.
    public static func during<T>(_ body: () async throws -> T,
                                 onSignal: @escaping @Sendable () -> Void) async rethrows -> T {
        // Cancelled and awaited when this scope ends, so no waiter outlives `body`.
        async let _: Void = { if await next() != nil { onSignal() } }()
        return try await body()
    }

    /// The next SIGTERM or SIGINT's name, or nil when the waiting task is cancelled first (the signals then get
    /// their default action back).
    public static func next() async -> String? {
        let queue = DispatchQueue(label: "shutdown-signal")
        let holder = SourceHolder()
        let once = OnceFlag()
        let waiting = Mutex<CheckedContinuation<String?, Never>?>(nil)
        let name: String? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiting.withLock { $0 = continuation }
                for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
                    signal(number, SIG_IGN)   // the dispatch source receives it instead of the default handler
                    let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                    source.setEventHandler {
                        if once.claim() { continuation.resume(returning: name) }
                    }
                    source.resume()
                    holder.keep(source)
                }
                // Cancelled before the continuation was stored: the handler below found none to resume.
                if Task.isCancelled, once.claim() { continuation.resume(returning: nil) }
            }
        } onCancel: {
            if let continuation = waiting.withLock({ $0 }), once.claim() { continuation.resume(returning: nil) }
        }
        if name == nil {
            holder.cancelAll()
            for number in [SIGTERM, SIGINT] { signal(number, SIG_DFL) }
        }
        withExtendedLifetime(holder) {}
        return name
    }

    private final class SourceHolder: @unchecked Sendable {
        // Touched only while registering, before any signal can be delivered, and after the wait; keeps the
        // sources alive.
        private var sources: [any DispatchSourceSignal] = []
        func keep(_ source: any DispatchSourceSignal) { sources.append(source) }
        func cancelAll() { sources.forEach { $0.cancel() } }
    }
}
