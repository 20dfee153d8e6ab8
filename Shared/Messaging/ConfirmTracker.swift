/// Publisher-confirm bookkeeping for one channel: the broker numbers published messages 1, 2, 3... and acks or
/// nacks them, singly or "multiple" (everything up to a tag). A waiter is settled once all its tags are settled.
struct ConfirmTracker<Waiter> {
    private struct Entry {
        var waiter: Waiter
        var pending: Set<UInt64>
        var refused = false
    }

    private(set) var nextTag: UInt64 = 1
    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }

    /// Records `count` messages just published and the waiter for all of them.
    mutating func published(count: Int, waiter: Waiter) {
        precondition(count > 0)
        entries.append(Entry(waiter: waiter, pending: Set(nextTag..<nextTag + UInt64(count))))
        nextTag += UInt64(count)
    }

    /// Applies one basic.ack / basic.nack; returns the waiters it settled, with whether any of their messages
    /// were refused by the broker.
    mutating func settle(tag: UInt64, multiple: Bool, negative: Bool) -> [(waiter: Waiter, refused: Bool)] {
        for index in entries.indices {
            let before = entries[index].pending.count
            if multiple {
                entries[index].pending = entries[index].pending.filter { $0 > tag }
            } else {
                entries[index].pending.remove(tag)
            }
            if negative && entries[index].pending.count < before { entries[index].refused = true }
        }
        let settled = entries.filter { $0.pending.isEmpty }.map { (waiter: $0.waiter, refused: $0.refused) }
        entries.removeAll { $0.pending.isEmpty }
        return settled
    }

    /// Empties the tracker after a reconnect (tags restart at 1 on a new channel); returns the unsettled waiters.
    mutating func reset() -> [Waiter] {
        defer { entries = []; nextTag = 1 }
        return entries.map { $0.waiter }
    }
}
