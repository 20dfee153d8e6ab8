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
    /// Events sent early (`sendEarly`), by id, until both their confirmation and their commit are in.
    private let early = Mutex<[String: EarlyEvent]>([:])

    private struct EarlyEvent {
        var committed = false
        /// What the broker answered; nil until it has.
        var confirmed: Bool?
    }

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
        enqueue(events)
    }

    /// Hands `events` to the broker before the transaction that writes their rows has committed, for a writer
    /// whose event ids are fixed before it (a retry, or the recovery, writes the same ids): a copy that leaves
    /// early and one that leaves later are one event to consumers, who dedupe by id. A row is marked once its
    /// event is confirmed and its transaction committed (`committed`), whichever comes last; an event the broker
    /// did not confirm leaves again at the commit.
    func sendEarly(_ events: [EventPublisher.EncodedEvent]) {
        guard sink.isConnected, !events.isEmpty else { return }
        early.withLock { early in
            for event in events { early[event.id] = EarlyEvent() }
        }
        enqueue(events)
    }

    /// The transaction that wrote the rows of `events` committed: those sent early are marked once confirmed (at
    /// once if they are already); the others leave now.
    func committed(_ events: [EventPublisher.EncodedEvent]) {
        var marked: [String] = [], leaving: [EventPublisher.EncodedEvent] = []
        early.withLock { early in
            for event in events {
                guard var state = early.removeValue(forKey: event.id) else {
                    leaving.append(event)
                    continue
                }
                switch state.confirmed {
                case nil:
                    state.committed = true
                    early[event.id] = state
                case true?: marked.append(event.id)
                case false?: leaving.append(event)
                }
            }
        }
        markConfirmed(marked)
        send(leaving)
    }

    /// Events sent early whose rows will not be written by this transaction (it rolled back, or another wrote them).
    func forget(_ events: [EventPublisher.EncodedEvent]) {
        guard !events.isEmpty else { return }
        early.withLock { early in
            for event in events { early[event.id] = nil }
        }
    }

    /// Events still waiting for their confirmation or their commit after being sent early.
    var earlyCount: Int { early.withLock { $0.count } }

    private func enqueue(_ events: [EventPublisher.EncodedEvent]) {
        guard !events.isEmpty else { return }
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
            let succeeded: Bool
            if case .success = result { succeeded = true } else { succeeded = false }
            markConfirmed(settled(batch, confirmed: succeeded))
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

    /// The broker answered for `batch`: the ids whose rows can be marked now. An event sent early whose transaction
    /// has not committed yet keeps the answer for `committed`; one whose transaction has and that was not confirmed
    /// is left to the relay, as any unconfirmed event is.
    private func settled(_ batch: [EventPublisher.EncodedEvent], confirmed: Bool) -> [String] {
        early.withLock { early in
            var marked: [String] = []
            for event in batch {
                guard var state = early[event.id], !state.committed else {
                    early[event.id] = nil
                    if confirmed { marked.append(event.id) }
                    continue
                }
                state.confirmed = confirmed
                early[event.id] = state
            }
            return marked
        }
    }

    private func markConfirmed(_ ids: [String]) {
        guard !ids.isEmpty else { return }
        confirmed.withLock { $0 += ids }
        wake?.signal(rows: false)
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
