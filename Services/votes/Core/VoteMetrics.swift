import Metrics

/// Ballots per round and what became of each ballot, in the process's registry.
enum VoteMetrics {
    static let roundBallots = MetricsRegistry.shared.histogram(
        "parse_vote_round_ballots", help: "Ballots taken together in one vote round.",
        buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000]).labels()
    static let ballots = MetricsRegistry.shared.counter(
        "parse_vote_ballots", help: "Ballots answered, by outcome: applied (counted), existing (a retry answered "
            + "from the ledger), refused, failed.", labels: ["outcome"])
    static let applied = ballots.labels("applied")
    static let existing = ballots.labels("existing")
    static let refused = ballots.labels("refused")
    static let failed = ballots.labels("failed")
}
