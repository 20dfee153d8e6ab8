import Metrics

/// The gateway's request metrics, in the process's registry (beside the broker connection's, which the
/// messaging library counts).
struct GatewayMetrics: Sendable {
    let requests = MetricsRegistry.shared.counter(
        "parse_http_requests", help: "HTTP requests answered, by route template, method and status.",
        labels: ["route", "method", "status"])
    let duration = MetricsRegistry.shared.histogram(
        "parse_http_request_duration_seconds",
        help: "Time from a request's arrival at the responder to its answer, by route template and method.",
        labels: ["route", "method"])
    let inFlight = MetricsRegistry.shared.gauge(
        "parse_http_requests_in_flight", help: "HTTP requests waiting for their answer right now.").labels()
    let queueMessages = MetricsRegistry.shared.gauge(
        "parse_amqp_queue_messages", help: "Commands waiting in each service's queue (ready, not yet taken), "
            + "read from RabbitMQ when the metrics are asked for.", labels: ["queue"])

    func count(route: String, method: String, status: Int, seconds: Double?) {
        let method = RouteTemplate.method(method)
        requests.labels(route, method, String(status)).increment()
        if let seconds { duration.labels(route, method).observe(seconds) }
    }
}
