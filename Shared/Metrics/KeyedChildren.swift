import Synchronization

/// Children of a family told apart by one small integer (an HTTP status beside labels already fixed), found without
/// a lock: a few slots, each set once with the child of one key and probed in order. Keys past the slots still get
/// their child, from `resolve` (the family's locked look-up), so nothing is lost when a caller sees many keys.
public final class KeyedChildren<Child: AnyObject & Sendable>: Sendable {
    private final class Entry: Sendable {
        let key: Int
        let child: Child

        init(key: Int, child: Child) {
            self.key = key
            self.child = child
        }
    }

    private final class Slot: Sendable {
        let entry = Atomic<Unmanaged<Entry>?>(nil)

        deinit { entry.load(ordering: .acquiring)?.release() }
    }

    private let slots: [Slot]

    public init(slots: Int = 8) {
        self.slots = (0..<slots).map { _ in Slot() }
    }

    /// The child of `key`; `resolve` makes it (and must answer the same child for the same key every time).
    public func child(_ key: Int, _ resolve: (Int) -> Child) -> Child {
        for slot in slots {
            if let entry = slot.entry.load(ordering: .acquiring)?.takeUnretainedValue() {
                if entry.key == key { return entry.child }
                continue
            }
            let made = Unmanaged.passRetained(Entry(key: key, child: resolve(key)))
            let (exchanged, existing) = slot.entry.compareExchange(expected: nil, desired: made,
                                                                   ordering: .acquiringAndReleasing)
            if exchanged { return made.takeUnretainedValue().child }
            made.release()
            // Another thread took this slot first, maybe for the same key.
            if let entry = existing?.takeUnretainedValue(), entry.key == key { return entry.child }
        }
        return resolve(key)
    }
}
