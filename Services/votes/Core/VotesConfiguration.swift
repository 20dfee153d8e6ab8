import Runtime

/// The votes service's own settings (see docs/vote-events.md).
public struct VotesConfiguration: Sendable {
    /// What a request repeated with the same `X-Parse-Request-Id` gets.
    public enum DuplicateRequests: String, Sendable {
        /// The first answer again, and nothing applied twice (the default: safe retries for clients).
        case replay
        /// parse-server's idempotency behaviour: `{"code":159,"error":"Duplicate request"}`.
        case reject
    }

    public var duplicateRequests: DuplicateRequests
    /// Most ballots of one object sent to `posts` in one transaction.
    public var maxBatch: Int
    /// Rounds under way at once (see `BallotBatcher`). One: the next round takes
    /// everything that arrived meanwhile, so rounds are larger and a vote costs less (measured on 2 cores: one
    /// round beat two; the figures are in the history of bench/votes.md).
    public var maxRounds: Int
    /// How long `posts` may take to apply a batch before the ballots are retried.
    public var applyTimeout: Duration
    /// Pending ballots older than this are completed by the recovery loop (a crash between steps).
    public var recoveryAge: Duration
    /// The counters where a user's vote is a like: +1 once, -1 to take it back.
    public var oncePerUser: OncePerUserClasses

    public init(duplicateRequests: DuplicateRequests = .replay, maxBatch: Int = 256, maxRounds: Int = 1,
                applyTimeout: Duration = .seconds(5), recoveryAge: Duration = .seconds(3),
                oncePerUser: OncePerUserClasses = OncePerUserClasses()) {
        self.duplicateRequests = duplicateRequests
        self.maxBatch = maxBatch
        self.maxRounds = maxRounds
        self.applyTimeout = applyTimeout
        self.recoveryAge = recoveryAge
        self.oncePerUser = oncePerUser
    }

    public static func fromEnvironment(_ env: Environment = Environment()) throws -> VotesConfiguration {
        let mode = env.string("PARSE_VOTE_DUPLICATE_REQUEST", default: "replay").lowercased()
        guard let duplicates = DuplicateRequests(rawValue: mode) else {
            throw ConfigurationError("PARSE_VOTE_DUPLICATE_REQUEST must be replay or reject, got '\(mode)'")
        }
        return VotesConfiguration(
            duplicateRequests: duplicates,
            maxBatch: try env.int("PARSE_VOTE_MAX_BATCH", default: 256, in: 1...10_000),
            maxRounds: try env.int("PARSE_VOTE_MAX_ROUNDS", default: 1, in: 1...64),
            applyTimeout: .milliseconds(try env.int("PARSE_VOTE_APPLY_TIMEOUT_MS", default: 5000, in: 100...600_000)),
            recoveryAge: .milliseconds(try env.int("PARSE_VOTE_RECOVERY_AGE_MS", default: 3000, in: 100...3_600_000)),
            oncePerUser: OncePerUserClasses(env.list("PARSE_VOTE_ONE_PER_USER", default: [])))
    }
}
