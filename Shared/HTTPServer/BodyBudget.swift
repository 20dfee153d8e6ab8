import Runtime
import Synchronization

/// The bytes of request bodies the server holds at once, bounded (`HTTPServerConfiguration.bodyBytesInFlight`): a
/// request reserves its declared length before any of its body is read (a chunked one, the largest body allowed)
/// and gives it back when it ends, answered or not. One that does not fit is refused at once with 503 and
/// `Retry-After`, before its body is read, so memory follows the configuration rather than what clients send at
/// the same moment. A request alone may always reserve up to the whole budget, so every body up to the size limit
/// is served on a quiet server.
final class BodyBudget: Sendable {
    let capacity: Int
    private let reserved = Mutex(0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Takes `bytes`, or nothing and false when they do not fit now.
    func reserve(_ bytes: Int) -> Bool {
        reserved.withLock { reserved in
            guard bytes <= capacity - reserved else { return false }
            reserved += bytes
            return true
        }
    }

    func release(_ bytes: Int) {
        reserved.withLock { $0 = max(0, $0 - bytes) }
    }

    var inUse: Int { reserved.withLock { $0 } }
}

/// One request's share of the budget, given back once, when the request ends. A large one also has the freed
/// memory handed back to the system (`MemoryTrim`).
struct BodyReservation: Sendable {
    let budget: BodyBudget
    let bytes: Int

    func release() {
        budget.release(bytes)
        if bytes >= MemoryTrim.largeBytes { MemoryTrim.afterLargeWork() }
    }
}
