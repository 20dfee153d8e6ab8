import Foundation

/// Runs blocking work (a libcurl easy call holds its thread until the answer) on a thread of its own and awaits it.
/// Not on a dispatch queue: on Linux the global queues' threads are also the ones Swift's tasks run on, and libdispatch
/// adds threads for blocked ones only slowly, so handlers waiting there for the API (which may be waiting for a
/// trigger this worker serves) would starve the very calls that would let them finish.
enum BlockingCall {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.name = "parse-api-call"
            thread.start()
        }
    }
}
