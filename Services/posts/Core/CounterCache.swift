import Synchronization

/// What this process last committed for each counter it applied votes to: the counter's value, its last sequence
/// and its object's write ACL, so that the next round on it can decide without reading them first
/// (`CounterRound.cachedRound`: one round trip instead of two). Never trusted blindly: the write that uses an entry
/// checks, under the row's lock, that the row still holds what the entry says, and a mismatch (a plain update, a
/// changed ACL, another process's votes) fails that write; the round then runs again reading everything.
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

    static let shared = CounterCache()

    /// Beyond this many counters the cache starts again empty: the counters voted on since refill it.
    static let capacity = 100_000

    private let entries = Mutex<[Key: Entry]>([:])

    func get(_ key: Key) -> Entry? { entries.withLock { $0[key] } }

    func store(_ new: [Key: Entry]) {
        guard !new.isEmpty else { return }
        entries.withLock { entries in
            if entries.count + new.count > Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries.merge(new) { _, latest in latest }
        }
    }

    func remove(_ keys: some Sequence<Key>) {
        entries.withLock { entries in
            for key in keys { entries.removeValue(forKey: key) }
        }
    }
}
