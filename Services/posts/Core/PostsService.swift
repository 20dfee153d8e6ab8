import Contracts
import Messaging
import Runtime
import ServiceKit
import Storage

/// The `posts` service: Parse objects, their classes (schemas), queries, ACLs and class-level permissions,
/// batches, and the object events. See docs/architecture.md for what it owns.
public enum PostsService: BuildableService {
    public static let name = ServiceName.posts

    /// Everything the service reads from its environment, read once at start.
    public struct Configuration: ServiceSettings {
        public var service: ServiceConfiguration
        public var posts: PostsConfiguration
        public var idempotency: IdempotencySettings

        public static func fromEnvironment(_ env: Environment = Environment()) throws -> Configuration {
            Configuration(service: try ServiceConfiguration.fromEnvironment(.posts, env),
                          posts: try PostsConfiguration.fromEnvironment(env),
                          idempotency: try IdempotencySettings.fromEnvironment(env))
        }
    }

    public static let migrations: [Migration] = PostsMigrations.all

    /// The app's schema definitions (`PARSE_SERVER_SCHEMA_DEFINITIONS`), applied before the first request.
    public static func prepare(configuration: Configuration, database pool: PostgresPool, logger: Logger) async throws {
        guard let schema = configuration.posts.schema else { return }
        try await DefinedSchemas(options: schema, logger: logger).apply(on: pool)
    }

    /// The service's handlers over `bus` (auth for `_User` includes, Cloud Code triggers) and its database.
    public static func build(configuration: Configuration, bus: RPCClient, database pool: PostgresPool) -> ServiceHandlers {
        var handlers = ServiceHandlers()
        let logger = Logger(service: "posts", level: configuration.service.logLevel)
        // One for the request handlers and the ballot handler alike, so a schema either reads serves both.
        let schemas = SchemaCache()
        ApplyBallotsHandler.register(&handlers.router, pool, schemas: schemas)
        handlers.router.register(ReportPushResults.type, ReportPushResults.self) { command, _ in
            PushResultsRecorded(counted: try await pool.withConnection { connection in
                try await connection.transaction { connection in
                    try await PushStatusUpdates.record(command.payload, on: connection)
                }
            })
        }
        handlers.router.register(RecordRequestCounts.type, RecordRequestCounts.self) { command, _ in
            try await pool.withConnection { connection in
                try await RequestCountsHandler.record(command.payload, on: connection)
            }
        }
        let sender = PushSender(pool: pool, logger: logger, idlePause: AppPolling.interval(.milliseconds(250)))
        handlers.jobs.append(BackgroundJob(name: "push sender") { await sender.run() })
        let users = UserDirectory.auth(bus, timeout: UserDirectory.timeout(requestTimeout: configuration.service.requestTimeout))
        let once = IdempotentRequests(pool: pool, settings: configuration.idempotency, logger: logger)
        handlers.jobs.append(IdempotencyCleanup(pool: pool, settings: configuration.idempotency, logger: logger).job)
        let cloud = CloudTriggers.start(configuration: configuration.service, calls: bus, pool: pool, jobs: &handlers.jobs)
        let posts = configuration.posts
        let runtimeSettings = RuntimeSettings(pool: pool, owner: PostsRuntimeSettings(startUp: posts))
        CacheGenerations.register(&handlers.router, pool: pool)
        let creates = CreateBatcher(pool: pool)
        handlers.jobs.append(.owning(creates.tasks))
        let gets = GetBatcher(pool: pool)
        handlers.jobs.append(.owning(gets.tasks))
        handlers.router.register(RelationMembers.type, RelationMembers.self) { command, _ in
            try await pool.withConnection { try await RelationMembersHandler.members(command.payload, on: $0, schemas: schemas) }
        }
        handlers.router.register(RESTRequest.type, RESTRequest.self) { command, logger in
            // A named batch is applied once item by item (or, in a transaction, as one write) by its handler.
            let namedBatch = command.payload.path == "batch" && command.payload.idempotent == true
            let context = RequestContext(identity: command.identity, serverURL: command.payload.serverURL,
                                         configuration: posts, requestId: command.requestId,
                                         users: users, cloud: cloud,
                                         triggerRequest: TriggerRequestInfo(command.payload), schemas: schemas,
                                         once: namedBatch ? once : nil, creates: creates, gets: gets,
                                         foreignSubqueries: ForeignSubqueries(
                                             calls: bus, identity: command.identity, requestId: command.requestId,
                                             depth: command.payload.subqueryDepth ?? 0,
                                             timeout: configuration.service.requestTimeout),
                                         settings: SettingsHandler(local: runtimeSettings, calls: RequestCalls(
                                             calls: bus, identity: command.identity, requestId: command.requestId,
                                             timeout: configuration.service.requestTimeout)))
            let handler = PostsHandler(context: context)
            // Connections are borrowed step by step, so none is held while Cloud Code runs a trigger.
            return try await cloud.withCurrentRegistrations {
                guard !namedBatch else { return try await handler.handle(command.payload, connections: .pool(pool), logger: logger) }
                return try await once.handle(command) {
                    try await handler.handle(command.payload, connections: .pool(pool), logger: logger)
                }
            }
        }
        return handlers
    }
}
