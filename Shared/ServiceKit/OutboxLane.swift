import Messaging
import Storage
import Synchronization

/// The way out for the events a process writes, once their transaction commits: handed to the broker at once by the
/// writer (`Outbox.add`), so an event leaves as soon as its change is committed, with no wait for the relay to wake,
/// take a connection and read the row. The row is still written, claimed for `claim` (`claimed_until`): other relays
/// leave it alone meanwhile, and take it once the claim has run out, if this process died or the broker did not
/// confirm. Confirmed rows are marked (or deleted) by this process's relay, a batch at a time; a row whose mark is
/// lost is published again after its claim, which consumers dedupe by event id, as they do every redelivery.
final class OutboxLane: Sendable {
    static let claim = "5 seconds"

    private let sink: any ImmediateEventSink
    /// The wake of the relay that marks this lane's rows; nil when the relay marks them at its poll only.
    private let wake: OutboxWake?
    private let confirmed = Mutex<[String]>([])
    /// Events handed over while a publish waits for its confirmation: they go together when it comes, so under a
    /// stream of commits the broker gets batches (one confirmation each), and a lone event goes at once.
    private let waiting = Mutex<(events: [EventPublisher.EncodedEvent], publishing: Bool)>(([], false))

    init(sink: any ImmediateEventSink, wake: OutboxWake?) {
        self.sink = sink
        self.wake = wake
    }

    /// Called when the transaction that wrote the event's row has committed.
    func send(_ event: EventPublisher.EncodedEvent) { send([event]) }

    /// The same for the events of one transaction, in their order.
    func send(_ events: [EventPublisher.EncodedEvent]) {
        // Not connected: the row waits for its claim to run out, then a relay publishes it.
        guard sink.isConnected else { return }
        let batch = waiting.withLock { waiting -> [EventPublisher.EncodedEvent]? in
            waiting.events += events
            guard !waiting.publishing else { return nil }
            waiting.publishing = true
            defer { waiting.events = [] }
            return waiting.events
        }
        if let batch { publish(batch) }
    }

    private func publish(_ batch: [EventPublisher.EncodedEvent]) {
        sink.publishNow(encoded: batch) { [self] result in
            if case .success = result {
                confirmed.withLock { $0 += batch.map(\.id) }
                wake?.signal(rows: false)
            }
            let next = waiting.withLock { waiting -> [EventPublisher.EncodedEvent]? in
                guard !waiting.events.isEmpty else {
                    waiting.publishing = false
                    return nil
                }
                defer { waiting.events = [] }
                return waiting.events
            }
            if let next { publish(next) }
        }
    }

    /// The ids of the events confirmed since the last call, whose rows are to be marked.
    func takeConfirmed() -> [String] { confirmed.withLock { ids in defer { ids = [] }; return ids } }

    /// Ids whose mark failed, for the next round.
    func giveBack(_ ids: [String]) { confirmed.withLock { $0.insert(contentsOf: ids, at: 0) } }
}

/// The lanes of this process by the pool of the database whose outbox they serve: several services in one process
/// (tests) each have theirs.
final class OutboxLanes: Sendable {
    static let shared = OutboxLanes()

    private let lanes = Mutex<[ObjectIdentifier: OutboxLane]>([:])

    func lane(for pool: ObjectIdentifier) -> OutboxLane? { lanes.withLock { $0[pool] } }

    func open(_ lane: OutboxLane, for pool: ObjectIdentifier) { lanes.withLock { $0[pool] = lane } }

    func close(for pool: ObjectIdentifier) { lanes.withLock { $0[pool] = nil } }
}
