import Contracts
import Messaging
import Storage

/// What makes one backend service: its name, its database migrations, the commands it handles and the background
/// jobs it runs.
public struct ServiceDefinition: Sendable {
    public var name: ServiceName
    public var migrations: [Migration]
    /// Registers the service's command handlers and adds its background jobs; they reach the service's own
    /// database through the pool and other services through the client, which the host starts before and stops
    /// after the handlers and jobs run. The host starts the jobs once the service consumes its queue and cancels
    /// them while draining.
    public var registerCommands: @Sendable (inout CommandRouter, PostgresPool, RPCClient, inout [BackgroundJob]) throws -> Void

    public init(name: ServiceName, migrations: [Migration],
                registerCommands: @escaping @Sendable (inout CommandRouter, PostgresPool, RPCClient, inout [BackgroundJob]) throws -> Void
                    = { _, _, _, _ in }) {
        self.name = name
        self.migrations = migrations
        self.registerCommands = registerCommands
    }
}
