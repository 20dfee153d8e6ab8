import Contracts
import Messaging
import Runtime
import Storage

/// A service's whole configuration, read once at start.
public protocol ServiceSettings: Sendable {
    static func fromEnvironment(_ env: Environment) throws -> Self
    /// The part every service has (broker, database, log level...), which `ServiceHost` runs it with.
    var service: ServiceConfiguration { get }
}

/// A backend service made by one `build(configuration:bus:database:)`, which both its `main` and its tests call;
/// `main` and `definition` are the same for every such service and live here once.
public protocol BuildableService: SendableMetatype {
    associatedtype Configuration: ServiceSettings
    static var name: ServiceName { get }
    static var migrations: [Migration] { get }
    static func build(configuration: Configuration, bus: RPCClient, database: PostgresPool) -> ServiceHandlers
    /// Work done once at start, after the migrations and before the first command; an error stops the start.
    static func prepare(configuration: Configuration, database: PostgresPool, logger: Logger) async throws
    /// What `ServiceHost` runs; a service with its own defaults (prefetch, outbox retention) gives its own.
    static func definition(_ configuration: Configuration) -> ServiceDefinition
}

extension BuildableService {
    /// Reads the configuration once, at start, and runs the service; the exit status.
    public static func main() async -> Int32 {
        await ServiceHost.main(name) {
            let configuration = try Configuration.fromEnvironment(Environment())
            return (configuration.service, definition(configuration))
        }
    }

    public static func prepare(configuration: Configuration, database: PostgresPool, logger: Logger) async throws {}

    public static func definition(_ configuration: Configuration) -> ServiceDefinition {
        ServiceDefinition(name: name, migrations: migrations, prepare: { pool, logger in
            try await prepare(configuration: configuration, database: pool, logger: logger)
        }, registerCommands: { router, pool, calls, jobs in
            let handlers = build(configuration: configuration, bus: calls, database: pool)
            router.merge(handlers.router)
            jobs += handlers.jobs
        })
    }
}
