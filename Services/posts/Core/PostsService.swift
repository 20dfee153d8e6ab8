import Contracts
import Runtime
import ServiceKit
import Storage

/// The `posts` service: Parse objects, their classes (schemas), queries, ACLs and class-level permissions,
/// batches, and the object events. See docs/architecture.md for what it owns.
public enum PostsService {
    public static let definition = ServiceDefinition(
        name: .posts,
        migrations: PostsMigrations.all,
        registerCommands: { router, pool, calls, jobs in
            let configuration = try PostsConfiguration.fromEnvironment()
            let service = try ServiceConfiguration.fromEnvironment(.posts)
            ApplyBallotsHandler.register(&router, pool)
            router.register(ReportPushResults.type, ReportPushResults.self) { command, _ in
                PushResultsRecorded(counted: try await pool.withConnection { connection in
                    try await connection.transaction { connection in
                        try await PushStatusUpdates.record(command.payload, on: connection)
                    }
                })
            }
            router.register(RecordRequestCounts.type, RecordRequestCounts.self) { command, _ in
                try await pool.withConnection { connection in
                    try await RequestCountsHandler.record(command.payload, on: connection)
                }
            }
            let sender = PushSender(pool: pool, logger: Logger(service: "posts", level: service.logLevel))
            jobs.append(BackgroundJob(name: "push sender") { await sender.run() })
            let users = UserDirectory.auth(calls)
            let idempotency = try IdempotencySettings.fromEnvironment()
            let serviceLogger = Logger(service: "posts", level: service.logLevel)
            let once = IdempotentRequests(pool: pool, settings: idempotency, logger: serviceLogger)
            jobs.append(IdempotencyCleanup(pool: pool, settings: idempotency, logger: serviceLogger).job)
            let cloud = try CloudTriggers.start(.posts, calls: calls, jobs: &jobs)
            router.register(RESTRequest.type, RESTRequest.self) { command, logger in
                let context = RequestContext(identity: command.identity, serverURL: command.payload.serverURL,
                                             configuration: configuration, requestId: command.requestId,
                                             users: users, cloud: cloud,
                                             triggerRequest: TriggerRequestInfo(command.payload))
                let handler = PostsHandler(context: context)
                // Connections are borrowed step by step, so none is held while Cloud Code runs a trigger.
                return try await once.handle(command) {
                    try await handler.handle(command.payload, connections: .pool(pool), logger: logger)
                }
            }
        })
}
