import Metrics

/// What the broker connections of a process count, in the process's registry. Connection names (`gateway`,
/// `posts-commands`, ...) and queue names are fixed by the code, so their labels stay bounded.
enum MessagingMetrics {
    static let reconnects = MetricsRegistry.shared.counter(
        "parse_amqp_reconnects", help: "Connections to RabbitMQ made again after one was lost or refused.",
        labels: ["connection"])
    static let connected = MetricsRegistry.shared.gauge(
        "parse_amqp_connected", help: "1 while the connection to RabbitMQ is open, else 0.", labels: ["connection"])
    static let unacked = MetricsRegistry.shared.gauge(
        "parse_amqp_unacked_messages", help: "Deliveries taken from RabbitMQ and not yet acknowledged.",
        labels: ["connection"])
    static let rpcTimeouts = MetricsRegistry.shared.counter(
        "parse_rpc_timeouts", help: "Calls to a service whose reply did not come within their timeout.",
        labels: ["queue"])
    static let commands = MetricsRegistry.shared.counter(
        "parse_commands", help: "Commands handled, by type and outcome (ok, refused: a Parse error answered, "
            + "timeout, retry, dead_letter, unknown_type).", labels: ["type", "outcome"])
    /// Apps are made by their administrators, through the registry: their number bounds this family.
    static let appCommands = MetricsRegistry.shared.counter(
        "parse_app_commands", help: "Commands of the apps created at run time, by app (its application id) and outcome; "
            + "the stack's own app's count in parse_commands only.", labels: ["app", "outcome"])
    static let commandDuration = MetricsRegistry.shared.histogram(
        "parse_command_duration_seconds", help: "Time a service took to handle a command, by type.", labels: ["type"])
    static let commandsInFlight = MetricsRegistry.shared.gauge(
        "parse_commands_in_flight", help: "Commands being handled right now.").labels()
    static let eventsPublished = MetricsRegistry.shared.counter(
        "parse_events_published", help: "Events the broker confirmed, by type.", labels: ["type"])
}
