import Dispatch
import Foundation

/// Waits for SIGTERM or SIGINT, so a service can drain and stop cleanly instead of dying mid-request.
public enum ShutdownSignal {
    /// Suspends until the process receives SIGTERM or SIGINT; returns the signal's name.
    public static func wait() async -> String {
        let queue = DispatchQueue(label: "shutdown-signal")
        let holder = SourceHolder()
        let name: String = await withCheckedContinuation { continuation in
            let once = OnceFlag()
            for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
                signal(number, SIG_IGN)   // the dispatch source receives it instead of the default handler
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    if once.claim() { continuation.resume(returning: name) }
                }
                source.resume()
                holder.keep(source)
            }
        }
        withExtendedLifetime(holder) {}
        return name
    }

    private final class SourceHolder: @unchecked Sendable {
        // Touched only while registering, before any signal can be delivered; keeps the sources alive.
        private var sources: [any DispatchSourceSignal] = []
        func keep(_ source: any DispatchSourceSignal) { sources.append(source) }
    }
}
