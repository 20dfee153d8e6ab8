import Dispatch
import Synchronization

/// What this process last committed for each counter it applied votes to: the counter's value, its last sequence
/// and its object's write ACL, so that the next round on it can decide without reading them first
/// (`CounterUpdate.cachedRound`: one round trip instead of two). Never trusted blindly: the write that uses an entry
/// checks, under the row's lock, that the row still holds what the entry says, and a mismatch (a plain update, a
/// changed ACL, another process's votes) fails that write; the round then runs again reading everything.
///
/// A counter found changed is not remembered again for a while (`distrust`): when several posts processes take a
/// counter's rounds in turn, each would otherwise find it changed at every round and pay a failed write first.
final class CounterCache: Sendable {
    struct Key: Hashable, Sendable {
        var className: String
        var objectId: String
        var field: String
    }

    struct Entry: Sendable, Equatable {
        /// Nil: the object has no value in the field yet (counted from 0).
        var value: Double?
        var lastSequence: Int
        /// `_wperm`: nil when anyone may write.
        var writers: [String]?
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Counters found changed, and until when (`DispatchTime` nanoseconds) they are not remembered.
        var distrusted: [Key: UInt64] = [:]
    }

    /// Beyond this many counters (or counters distrusted) the cache starts again empty.
    let capacity: Int
    let distrustNanoseconds: UInt64
    private let state = Mutex(State())

    init(capacity: Int = 100_000, distrustFor period: Duration = .seconds(10)) {
        self.capacity = capacity
        let (seconds, attoseconds) = period.components
        distrustNanoseconds = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }

    func get(_ key: Key) -> Entry? { state.withLock { $0.entries[key] } }

    /// Remembers what a committed round left, except for counters distrusted still (`now`: `DispatchTime`
    /// nanoseconds).
    func store(_ new: [Key: Entry], now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        guard !new.isEmpty else { return }
        state.withLock { state in
            if state.entries.count + new.count > capacity { state.entries.removeAll(keepingCapacity: true) }
            for (key, entry) in new {
                if let until = state.distrusted[key] {
                    guard until <= now else { continue }
                    state.distrusted.removeValue(forKey: key)
                }
                state.entries[key] = entry
            }
        }
    }

    /// Forgets counters found changed and does not remember them for `distrustFor`.
    func distrust(_ keys: some Sequence<Key>, now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        let until = now + distrustNanoseconds
        state.withLock { state in
            if state.distrusted.count > capacity { state.distrusted.removeAll(keepingCapacity: true) }
            for key in keys {
                state.entries.removeValue(forKey: key)
                state.distrusted[key] = until
            }
        }
    }
}
