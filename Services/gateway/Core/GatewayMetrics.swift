import Metrics

/// The gateway's request metrics, in the process's registry (beside the broker connection's, which the
/// messaging library counts). Each route template and method has its series resolved once (`RouteSeries`), so a
/// request costs two array reads and a few atomic adds, no lock and no label string.
struct GatewayMetrics: Sendable {
    let requests = MetricsRegistry.shared.counter(
        "parse_http_requests", help: "HTTP requests answered, by route template, method and status.",
        labels: ["route", "method", "status"])
    let duration = MetricsRegistry.shared.histogram(
        "parse_http_request_duration_seconds",
        help: "Time from a request's arrival at the responder to its answer, by route template and method.",
        labels: ["route", "method"])
    /// Counted beside `requests` for the apps created at run time (their number, set by their administrators,
    /// bounds it); the stack's own app's requests count in `requests` only.
    static let appRequests = MetricsRegistry.shared.counter(
        "parse_app_http_requests", help: "HTTP requests of the apps created at run time answered, by app (its application id) "
            + "and status.", labels: ["app", "status"])
    let inFlight = MetricsRegistry.shared.gauge(
        "parse_http_requests_in_flight", help: "HTTP requests waiting for their answer right now.").labels()
    let queueMessages = MetricsRegistry.shared.gauge(
        "parse_amqp_queue_messages", help: "Commands waiting in each service's queue (ready, not yet taken), "
            + "read from RabbitMQ when the metrics are asked for.", labels: ["queue"])
    /// One per template and method: `series[template * methods + method]`.
    private let series: [RouteSeries] = RouteTemplate.names.flatMap { route in
        RouteTemplate.methods.map { RouteSeries(route: route, method: $0) }
    }

    static func count(app: String, status: Int) {
        guard MetricsSwitch.isOn else { return }
        appRequests.labels(app, String(status)).increment()
    }

    /// `template` is a `RouteTemplate.index`.
    func count(template: Int, method: String, status: Int, seconds: Double?) {
        guard MetricsSwitch.isOn else { return }
        let series = series[template * RouteTemplate.methods.count + RouteTemplate.methodIndex(method)]
        series.statuses.child(status) { requests.labels(series.route, series.method, String($0)) }.increment()
        if let seconds { series.duration.child { duration.labels(series.route, series.method) }.observe(seconds) }
    }

    /// The children of one template and method, found on first use.
    private final class RouteSeries: Sendable {
        let route: String
        let method: String
        let duration = ChildSlot<Histogram>()
        /// Most routes answer a handful of statuses; more still count, through the family's look-up.
        let statuses = KeyedChildren<Counter>(slots: 6)

        init(route: String, method: String) {
            self.route = route
            self.method = method
        }
    }
}
