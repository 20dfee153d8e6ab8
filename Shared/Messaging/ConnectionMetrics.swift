import Metrics

/// One connection's series of `MessagingMetrics`, labelled once when the connection is made.
struct ConnectionMetrics: Sendable {
    let connected: Gauge
    let unacked: Gauge
    let reconnects: Counter

    init(connectionName name: String) {
        connected = MessagingMetrics.connected.labels(name)
        unacked = MessagingMetrics.unacked.labels(name)
        reconnects = MessagingMetrics.reconnects.labels(name)
    }
}
