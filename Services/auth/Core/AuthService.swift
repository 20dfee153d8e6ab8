import Contracts
import Runtime
import ServiceKit
import Storage

/// The `auth` service: users, sessions and roles (see docs/architecture.md). Besides the REST routes it answers
/// `session.resolve.v1`, with which gateways turn a session token into the identity commands carry.
public enum AuthService {
    public static let definition = ServiceDefinition(
        name: .auth,
        migrations: [OutboxMigration.migration, AuthMigrations.tables],
        registerCommands: { router, pool in
            let settings: AuthSettings
            do {
                settings = try AuthSettings.fromEnvironment()
            } catch {
                // The host has already started; refusing to run with a misread lockout or session length is safer
                // than guessing.
                Logger(service: "auth").error("invalid configuration", ["error": "\(error)"])
                fatalError("invalid auth configuration: \(error)")
            }
            let routes = AuthRouter(pool: pool, settings: settings)
            let resolver = SessionResolveHandler(pool: pool, sessions: SessionStore(settings: settings))
            router.register(RESTRequest.type, RESTRequest.self) { command, _ in
                try await routes.handle(AuthRequest(command))
            }
            router.register(SessionResolveHandler.commandType, Empty.self) { command, _ in
                try await resolver.resolve(command)
            }
        })
}
