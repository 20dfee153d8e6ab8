import Metrics

/// How long callers wait for a pooled PostgreSQL connection and how long statements take on it, in the process's
/// registry.
enum StorageMetrics {
    static let poolWait = MetricsRegistry.shared.histogram(
        "parse_db_pool_wait_seconds", help: "Time a caller waited for a PostgreSQL connection of the pool.",
        buckets: Histogram.shortBuckets).labels()
    static let statementDuration = MetricsRegistry.shared.histogram(
        "parse_db_statement_duration_seconds",
        help: "Time a trip to PostgreSQL took on its connection (one statement, or a pipeline sent together).",
        buckets: Histogram.shortBuckets).labels()
    /// Round trips run on the thread of the I/O loop their task ran on (`LoopPipeline`), and on a connection's queue.
    static let roundTrips = MetricsRegistry.shared.counter(
        "parse_db_round_trips", help: "Trips to PostgreSQL, by the thread that waited for them: an I/O loop's or the connection's own.",
        labels: ["waited_on"])
    static let roundTripsOnLoop = roundTrips.labels("loop")
    static let roundTripsOnQueue = roundTrips.labels("queue")
}
