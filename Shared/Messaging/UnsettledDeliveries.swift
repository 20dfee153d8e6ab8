/// The delivery tags of one AMQP session that still wait for an ack or a reject, kept by the connection thread so
/// that acks taken together go out as one `basic.ack` with `multiple` set when they settle the oldest deliveries:
/// a service answering a round of commands at once then sends one ack frame (one write) instead of one per command.
struct UnsettledDeliveries {
    /// Ascending: the broker numbers deliveries in the order it sends them.
    private var tags: [UInt64] = []

    var count: Int { tags.count }

    mutating func delivered(_ tag: UInt64) {
        tags.append(tag)
    }

    /// How to send the acks of `acked`: `upTo` (when set) with `multiple` settles every delivery up to it, which
    /// are exactly the oldest unsettled ones and all in `acked`; `single` one by one for the others. Tags this
    /// session does not know are acked singly, as they were asked for.
    mutating func acks(for acked: [UInt64]) -> (upTo: UInt64?, single: [UInt64]) {
        let wanted = Set(acked)
        var front = 0
        while front < tags.count, wanted.contains(tags[front]) { front += 1 }
        let upTo = front >= 2 ? tags[front - 1] : nil
        let covered = upTo == nil ? Set<UInt64>() : Set(tags[0..<front])
        tags.removeFirst(upTo == nil ? 0 : front)
        var single: [UInt64] = []
        for tag in acked where !covered.contains(tag) {
            single.append(tag)
            settled(tag)
        }
        return (upTo, single)
    }

    /// A delivery settled on its own (rejected, or acked singly).
    mutating func settled(_ tag: UInt64) {
        if let index = tags.firstIndex(of: tag) { tags.remove(at: index) }
    }

    /// A new session starts with nothing to settle.
    mutating func reset() {
        tags.removeAll(keepingCapacity: true)
    }
}
