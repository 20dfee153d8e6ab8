import Messaging
import Runtime

/// The events of an app other than the stack's own: published under its routing keys (`AppContext.routingKey`),
/// whatever the writer wrote in its outbox row, so an app's relay can publish no event as another app's.
struct AppEventSink: ImmediateEventSink {
    let inner: any ImmediateEventSink
    let app: String

    var isConnected: Bool { inner.isConnected }

    func publish(encoded events: [EventPublisher.EncodedEvent]) async throws {
        try await inner.publish(encoded: events.map(routed))
    }

    func publishNow(encoded events: [EventPublisher.EncodedEvent], settled: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        inner.publishNow(encoded: events.map(routed), settled: settled)
    }

    private func routed(_ event: EventPublisher.EncodedEvent) -> EventPublisher.EncodedEvent {
        var event = event
        event.routingKey = AppContext.routingKey(event.routingKey, app: app)
        return event
    }
}
