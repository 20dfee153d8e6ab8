import Synchronization

/// Counts the parts of a received `MessageBatch` still unsettled. The broker knows only the batch, so it is
/// acknowledged when the last part is: a crash before that redelivers the whole batch, as for any unacked message.
final class BatchSettlement: Sendable {
    /// The queue the batch came from: where a rejected part goes back to, or whose dead-letter queue it goes to.
    let queue: String
    private let remaining: Atomic<Int>

    init(parts: Int, queue: String) {
        self.queue = queue
        remaining = Atomic(parts)
    }

    /// Settles one part; true for the last one, whose caller acknowledges the batch.
    func settlePart() -> Bool {
        remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0
    }
}
