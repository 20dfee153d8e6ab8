import Contracts
import Messaging
import ParseWire
import Runtime
import ServiceKit
import Storage

/// The `votes` service: the vote ledger and the vote events (see docs/architecture.md and
/// docs/vote-events.md).
public enum VotesService {
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

    /// Reads the configuration once, at start, and runs the service; the exit status.
    public static func main() async -> Int32 {
        let configuration: VotesConfiguration
        let service: ServiceConfiguration
        do {
            configuration = try VotesConfiguration.fromEnvironment()
            service = try ServiceConfiguration.fromEnvironment(.votes)
        } catch {
            Logger(service: "votes").error("invalid configuration", ["error": "\(error)"])
            return 2
        }
        return await ServiceHost.main(definition(configuration, logLevel: service.logLevel))
    }

    public static func definition(_ configuration: VotesConfiguration, logLevel: LogLevel) -> ServiceDefinition {
        ServiceDefinition(
            name: .votes,
            migrations: VotesMigrations.all,
            // Votes held at once are what a round can batch: with 32, 64 clients on one cat made rounds of about 8.
            defaultPrefetch: 256,
            // Vote events are rebuilt from the ledger when needed (`vote-consumer replay`): once published, keeping
            // them in the outbox too only cost PostgreSQL a second write of each.
            defaultOutboxRetentionMinutes: 0,
            databaseSettings: databaseSettings,
            registerCommands: { router, pool, client, jobs in
                let logger = Logger(service: "votes", level: logLevel)
                let ledger = BallotLedger(pool: pool)
                let batcher = BallotBatcher(ledger: ledger, client: client, configuration: configuration)
                let handler = CastVoteHandler(batcher: batcher, configuration: configuration)
                for type in [CastVote.type, CastVote.previousType] {
                    router.register(type, CastVote.self) { command, _ in try await handler.handle(command) }
                }
                let replay = ReplayVotesHandler(pool: pool)
                router.register(ReplayVotes.type, ReplayVotes.self) { command, _ in try await replay.handle(command) }
                let recovery = BallotRecovery(ledger: ledger, batcher: batcher, configuration: configuration, logger: logger)
                jobs.append(BackgroundJob(name: "ballot recovery") { await recovery.run() })
            })
    }
}
