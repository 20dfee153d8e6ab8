import Contracts
import Query
import Runtime
import ServiceKit
import Storage

/// The `auth` service: users, sessions and roles (see docs/architecture.md). Besides the REST routes it answers
/// `session.resolve.v1`, with which gateways turn a session token into the identity commands carry, and
/// `users.lookup.v1`, with which posts resolves `include` of `_User` pointers.
public enum AuthService {
    public static let definition = ServiceDefinition(
        name: .auth,
        migrations: [OutboxMigration.migration, AuthMigrations.tables, AuthDataMigration.migration,
                     PasswordPolicyMigration.migration, EmailTokenMigration.migration,
                     IdempotencyMigration.migration(version: 6), SessionsOutliveUsersMigration.migration],
        registerCommands: { router, pool, calls, jobs in
            // Refusing to run with a misread lockout or session length is safer than guessing.
            let settings = try AuthSettings.fromEnvironment()
            let lookup = UserLookupHandler(pool: pool)
            let routes = AuthRouter(pool: pool, settings: settings, includes: .posts(calls, users: lookup))
            let cloud = try CloudTriggers.start(.auth, calls: calls, jobs: &jobs)
            let resolver = SessionResolveHandler(pool: pool, sessions: SessionStore(settings: settings))
            let idempotency = try IdempotencySettings.fromEnvironment()
            let serviceLogger = Logger(service: "auth", level: try ServiceConfiguration.fromEnvironment(.auth).logLevel)
            let once = IdempotentRequests(pool: pool, settings: idempotency, logger: serviceLogger)
            jobs.append(IdempotencyCleanup(pool: pool, settings: idempotency, logger: serviceLogger).job)
            router.register(RESTRequest.type, RESTRequest.self) { command, logger in
                try await once.handle(command) {
                    do {
                        return try await routes.handle(AuthRequest(command, logger: logger, cloud: cloud))
                    } catch let error as PostgresError where !error.isConnectionFailure {
                        // What the client sent and PostgreSQL refused: a Parse error for it, PostgreSQL's words for the log.
                        guard let answer = error.queryError else { throw error }
                        logger.info("request refused by PostgreSQL", ["error": "\(error)"])
                        throw answer
                    }
                }
            }
            router.register(SessionResolveHandler.commandType, Empty.self) { command, _ in
                try await resolver.resolve(command)
            }
            router.register(UserLookup.type, UserLookup.self) { command, logger in
                try await lookup.lookup(command, logger: logger)
            }
        })
}
