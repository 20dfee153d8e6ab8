import Contracts
import Messaging
import Query
import Runtime
import ServiceKit
import Storage

/// The `auth` service: users, sessions and roles (see docs/architecture.md). Besides the REST routes it answers
/// `session.resolve.v1`, with which gateways turn a session token into the identity commands carry,
/// `session.cache.lease.v1`, with which they may cache it (`SessionEvictionAnnouncer`), and `users.lookup.v1`, with
/// which posts resolves `include` of `_User` pointers.
public enum AuthService: BuildableService {
    public static let name = ServiceName.auth

    /// Everything the service reads from its environment, read once at start.
    public struct Configuration: ServiceSettings {
        public var service: ServiceConfiguration
        var settings: AuthSettings
        var idempotency: IdempotencySettings

        /// Refusing to run with a misread lockout or session length is safer than guessing.
        public static func fromEnvironment(_ env: Environment = Environment()) throws -> Configuration {
            Configuration(service: try ServiceConfiguration.fromEnvironment(.auth, env),
                          settings: try AuthSettings.fromEnvironment(env),
                          idempotency: try IdempotencySettings.fromEnvironment(env))
        }
    }

    public static let migrations: [Migration] = [OutboxMigration.migration, AuthMigrations.tables, AuthDataMigration.migration,
                             PasswordPolicyMigration.migration, EmailTokenMigration.migration,
                             IdempotencyMigration.migration(version: 6), SessionsOutliveUsersMigration.migration,
                             CacheGenerations.migration(version: 8), SessionCacheLeases.migration,
                             RuntimeSettings.migration(version: 10), OutboxMigration.claims(version: 11),
                             AppRegistry.migration, AppRegistry.pushMigration,
                             AppRegistry.deletionMigration]

    public static func definition(_ configuration: Configuration) -> ServiceDefinition {
        var definition = ServiceDefinition(name: name, migrations: migrations, registerCommands: { router, pool, calls, jobs in
            register(configuration, &router, pool, calls, &jobs, appName: nil)
        })
        // Another app's mails and pages name it, and their links carry its id. Its name is the registry's as it is
        // when a request needs it: a rename answered applies to the next mail, on every replica.
        definition.registerAppCommands = { app, router, pool, calls, jobs in
            var appConfiguration = configuration
            appConfiguration.settings.email.applicationId = app.applicationId
            appConfiguration.settings.email.appName = app.name
            let timeout = configuration.service.requestTimeout
            register(appConfiguration, &router, pool, calls, &jobs,
                     appName: { try await calls.resolveApp(app.applicationId, timeout: timeout).name })
        }
        // The registry is the stack's own app's: another app's auth database has no apps.
        let stackApp = AppSummary(name: configuration.settings.email.appName ?? configuration.service.applicationId,
                                  applicationId: configuration.service.applicationId, isStackApp: true, createdAt: nil)
        definition.registerStackCommands = { router, pool, _ in
            AppRegistry.register(&router, pool: pool, stackApp: stackApp)
        }
        return definition
    }

    private static func register(_ configuration: Configuration, _ router: inout CommandRouter, _ pool: PostgresPool,
                                 _ calls: RPCClient, _ jobs: inout [BackgroundJob],
                                 appName: (@Sendable () async throws -> String)?) {
        let handlers = build(configuration: configuration, bus: calls, database: pool, appName: appName)
        router.merge(handlers.router)
        jobs += handlers.jobs
    }

    /// The service's handlers over `bus` (calls to posts for `include`, Cloud Code triggers) and its database.
    public static func build(configuration: Configuration, bus: RPCClient, database pool: PostgresPool) -> ServiceHandlers {
        build(configuration: configuration, bus: bus, database: pool, appName: nil)
    }

    /// The same; `appName`, for another app than the stack's, reads its name for the requests that may mail or show
    /// a page.
    static func build(configuration: Configuration, bus: RPCClient, database pool: PostgresPool,
                      appName: (@Sendable () async throws -> String)?) -> ServiceHandlers {
        var handlers = ServiceHandlers()
        let settings = configuration.settings
        let logger = Logger(service: "auth", level: configuration.service.logLevel)
        let lookup = UserLookupHandler(pool: pool)
        let includes = PointerIncludes.posts(bus, users: lookup,
                                             timeout: PointerIncludes.timeout(requestTimeout: configuration.service.requestTimeout))
        let routes = AuthRouter(pool: pool, settings: settings, includes: includes)
        let runtimeOwner = AuthRuntimeSettings(startUp: settings)
        let runtime = RuntimeSettings(pool: pool, owner: runtimeOwner)
        runtime.register(&handlers.router)
        // The routes with the settings in force: those changed at run time, read for the requests they apply to.
        // Only a request that may mail or show a page needs the app's name, and only with pages to link to.
        let namesApp = appName != nil && settings.email.publicServerURL != nil
        let routesInForce = { @Sendable (request: RESTRequest) async throws -> AuthRouter in
            guard AuthRuntimeSettings.appliesTo(method: request.method, path: request.path) else { return routes }
            let overrides = try await runtime.overrides()
            guard !overrides.isEmpty || namesApp else { return routes }
            var inForce = overrides.isEmpty ? settings : try runtimeOwner.applying(overrides)
            if namesApp, let appName { inForce.email.appName = try await appName() }
            return AuthRouter(pool: pool, settings: inForce, includes: includes)
        }
        let cloud = CloudTriggers.start(configuration: configuration.service, calls: bus, pool: pool, jobs: &handlers.jobs)
        let resolver = SessionResolveHandler(database: pool, sessions: SessionStore(settings: settings))
        let once = IdempotentRequests(pool: pool, settings: configuration.idempotency, logger: logger)
        let leases = SessionCacheLeases(pool: pool)
        let evictions = SessionEvictionAnnouncer(leases: leases, calls: bus, logger: logger)
        handlers.jobs.append(IdempotencyCleanup(pool: pool, settings: configuration.idempotency, logger: logger).job)
        CacheGenerations.register(&handlers.router, pool: pool)
        handlers.router.register(RESTRequest.type, RESTRequest.self) { command, logger in
            try await evictions.announcing(requestId: command.requestId) {
                try await cloud.withCurrentRegistrations {
                    try await once.handle(command) {
                        do {
                            var request = AuthRequest(command, logger: logger, cloud: cloud, calls: bus,
                                                      requestTimeout: configuration.service.requestTimeout)
                            request.limits = settings.requestComplexity
                            return try await routesInForce(command.payload).handle(request)
                        } catch let error as PostgresError where !error.isConnectionFailure {
                            // What the client sent and PostgreSQL refused: a Parse error for it, PostgreSQL's words
                            // for the log.
                            guard let answer = error.queryError else { throw error }
                            logger.info("request refused by PostgreSQL", ["error": "\(error)"])
                            throw answer
                        }
                    }
                }
            }
        }
        handlers.router.register(SessionCacheLease.type, SessionCacheLease.self) { command, _ in
            try await leases.grant(command.payload)
        }
        handlers.router.register(ResolveSession.type, Empty.self) { command, _ in
            try await resolver.resolve(command)
        }
        handlers.router.register(UserLookup.type, UserLookup.self) { command, logger in
            try await lookup.lookup(command, logger: logger)
        }
        return handlers
    }
}
