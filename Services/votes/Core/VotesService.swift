import Contracts
import Messaging
import ParseWire
import Runtime
import ServiceKit
import Storage

/// The `votes` service: the vote ledger and the vote events (see ARCHITECTURE.md, "The vote path", and
/// docs/vote-events.md).
public enum VotesService {
    public static let definition = ServiceDefinition(
        name: .votes,
        migrations: VotesMigrations.all,
        // Votes held at once are what a round can batch: with 32, 64 clients on one cat made rounds of about 8.
        defaultPrefetch: 256,
        // Vote events are rebuilt from the ledger when needed (`vote-consumer replay`): once published, keeping
        // them in the outbox too only cost PostgreSQL a second write of each.
        defaultOutboxRetentionMinutes: 0,
        registerCommands: { router, pool, client, jobs in
            let service = try ServiceConfiguration.fromEnvironment(.votes)
            let configuration = try VotesConfiguration.fromEnvironment()
            let logger = Logger(service: "votes", level: service.logLevel)
            let ledger = BallotLedger(pool: pool)
            let batcher = BallotBatcher(ledger: ledger, client: client, configuration: configuration)
            let handler = CastVoteHandler(recorder: BallotRecorder(ledger: ledger, maxBatch: configuration.maxBatch, maxRounds: configuration.maxRounds), batcher: batcher,
                                          configuration: configuration)
            router.register(CastVote.type, CastVote.self) { command, _ in try await handler.handle(command) }
            let recovery = BallotRecovery(ledger: ledger, batcher: batcher, configuration: configuration, logger: logger)
            jobs.append(BackgroundJob(name: "ballot recovery") { await recovery.run() })
        })
}
