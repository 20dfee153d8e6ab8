/// Where an outbox's events go: the broker's events exchange (`EventPublisher`, with publisher confirms) in a
/// service, an in-memory bus in a test that runs several services in one process. `publish` returns once every
/// event is taken, so the outbox may then let go of its rows.
public protocol EventSink: Sendable {
    /// False while the events cannot leave (the broker is unreachable): the outbox keeps its rows meanwhile.
    var isConnected: Bool { get }
    func publish(encoded events: [EventPublisher.EncodedEvent]) async throws
}

extension EventPublisher: EventSink {}

/// A sink that also takes events without its caller waiting (`EventPublisher.publishNow`): an outbox whose writer
/// hands it the events of a commit the moment it commits (`OutboxLane`).
public protocol ImmediateEventSink: EventSink {
    func publishNow(encoded events: [EventPublisher.EncodedEvent], settled: @escaping @Sendable (Result<Void, any Error>) -> Void)
}

extension EventPublisher: ImmediateEventSink {}
