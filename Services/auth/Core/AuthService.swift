import Contracts
import Runtime
import ServiceKit
import Storage

/// The `auth` service: users, sessions and roles (see docs/architecture.md). Besides the REST routes it answers
/// `session.resolve.v1`, with which gateways turn a session token into the identity commands carry, and
/// `users.lookup.v1`, with which posts resolves `include` of `_User` pointers.
public enum AuthService {
    public static let definition = ServiceDefinition(
        name: .auth,
        migrations: [OutboxMigration.migration, AuthMigrations.tables],
        registerCommands: { router, pool, calls, _ in
            // Refusing to run with a misread lockout or session length is safer than guessing.
            let settings = try AuthSettings.fromEnvironment()
            let lookup = UserLookupHandler(pool: pool)
            let routes = AuthRouter(pool: pool, settings: settings, includes: .posts(calls, users: lookup))
            let resolver = SessionResolveHandler(pool: pool, sessions: SessionStore(settings: settings))
            router.register(RESTRequest.type, RESTRequest.self) { command, _ in
                try await routes.handle(AuthRequest(command))
            }
            router.register(SessionResolveHandler.commandType, Empty.self) { command, _ in
                try await resolver.resolve(command)
            }
            router.register(UserLookup.type, UserLookup.self) { command, logger in
                try await lookup.lookup(command, logger: logger)
            }
        })
}
