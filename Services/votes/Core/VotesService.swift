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
        registerCommands: { router, pool in
            // A malformed setting stops the service at its first command rather than silently using a default.
            let settings = Result { () throws -> (ServiceConfiguration, VotesConfiguration) in
                (try ServiceConfiguration.fromEnvironment(.votes), try VotesConfiguration.fromEnvironment())
            }
            let service: ServiceConfiguration, configuration: VotesConfiguration
            switch settings {
            case .success(let loaded): (service, configuration) = loaded
            case .failure(let error):
                let refusal = ParseError(.internalServerError, "The votes service is misconfigured: \(error)")
                router.register(CastVote.type, CastVote.self) { _, _ -> RESTResponse in throw refusal }
                return
            }
            let logger = Logger(service: "votes", level: service.logLevel)
            let client = RPCClient(url: service.amqpURL, name: "votes-posts", eventExchange: service.eventExchange, logger: logger)
            client.start()
            let ledger = BallotLedger(pool: pool)
            let batcher = BallotBatcher(ledger: ledger, client: client, configuration: configuration)
            let handler = CastVoteHandler(recorder: BallotRecorder(ledger: ledger, maxBatch: configuration.maxBatch), batcher: batcher,
                                          configuration: configuration)
            router.register(CastVote.type, CastVote.self) { command, _ in try await handler.handle(command) }
            let recovery = BallotRecovery(ledger: ledger, batcher: batcher, configuration: configuration, logger: logger)
            Task { await recovery.run() }
        })
}
