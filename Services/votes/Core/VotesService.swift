import Contracts
import Messaging
import ParseWire
import Runtime
import ServiceKit
import Storage

/// The `votes` service: the vote ledger and the vote events (see docs/architecture.md and
/// docs/vote-events.md).
public enum VotesService: BuildableService {
    public static let name = ServiceName.votes
    public static let migrations: [Migration] = VotesMigrations.all

    /// Plans that go through the indexes, whatever the statistics say. Every statement of the ledger reads or
    /// writes a batch of ballots by key (`unnest` of array parameters joined on the primary key, `= ANY` on an
    /// index) or walks an index in order. Its plans are generic, made once per session, possibly while the ledger
    /// looks empty, and kept until the table is next analyzed: a plan that scans or hashes the whole table because
    /// it was small then costs more at every round, and the ledger grows by thousands of rows a second. With these a join on a batch is a nested loop over the batch, one index lookup
    /// per ballot.
    static let databaseSettings = [
        "plan_cache_mode": "force_generic_plan", "enable_seqscan": "off", "enable_hashjoin": "off",
        "enable_mergejoin": "off",
    ]

    /// Everything the service reads from its environment, read once at start.
    public struct Configuration: ServiceSettings {
        public var service: ServiceConfiguration
        public var votes: VotesConfiguration

        public static func fromEnvironment(_ env: Environment = Environment()) throws -> Configuration {
            Configuration(service: try ServiceConfiguration.fromEnvironment(.votes, env, defaultPrefetch: defaultPrefetch,
                                                                            defaultOutboxRetentionMinutes: 0),
                          votes: try VotesConfiguration.fromEnvironment(env))
        }
    }

    /// Votes held at once are what a round can batch: with 32, 64 clients on one cat made rounds of about 8.
    static let defaultPrefetch = 256

    public static func definition(_ configuration: Configuration) -> ServiceDefinition {
        ServiceDefinition(
            name: .votes,
            migrations: migrations,
            defaultPrefetch: defaultPrefetch,
            // Vote events are rebuilt from the ledger when needed (`vote-consumer replay`): once published, keeping
            // them in the outbox too only cost PostgreSQL a second write of each.
            defaultOutboxRetentionMinutes: 0,
            databaseSettings: databaseSettings,
            registerCommands: { router, pool, calls, jobs in
                let handlers = build(configuration: configuration, bus: calls, database: pool)
                router.merge(handlers.router)
                jobs += handlers.jobs
            })
    }

    /// The service's handlers over `bus` (posts applies the ballots) and its ledger.
    public static func build(configuration: Configuration, bus client: RPCClient,
                             database pool: PostgresPool) -> ServiceHandlers {
        var handlers = ServiceHandlers()
        let votes = configuration.votes
        let logger = Logger(service: "votes", level: configuration.service.logLevel)
        let ledger = BallotLedger(pool: pool)
        let batcher = BallotBatcher(ledger: ledger, client: client, configuration: votes)
        let handler = CastVoteHandler(batcher: batcher, configuration: votes)
        for type in [CastVote.type, CastVote.previousType] {
            handlers.router.register(type, CastVote.self) { command, _ in try await handler.handle(command) }
        }
        let replay = ReplayVotesHandler(pool: pool)
        handlers.router.register(ReplayVotes.type, ReplayVotes.self) { command, _ in try await replay.handle(command) }
        let recovery = BallotRecovery(ledger: ledger, batcher: batcher, configuration: votes, logger: logger)
        handlers.jobs.append(BackgroundJob(name: "ballot recovery") { await recovery.run() })
        handlers.jobs.append(.owning(batcher.roundTasks))
        return handlers
    }
}
