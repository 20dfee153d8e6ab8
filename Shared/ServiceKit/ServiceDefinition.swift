import Contracts
import Messaging
import Storage

/// What makes one backend service: its name, its database migrations, and the commands it handles.
public struct ServiceDefinition: Sendable {
    public var name: ServiceName
    public var migrations: [Migration]
    /// Registers the service's command handlers; they reach the service's own database through the pool and
    /// other services through the client, which the host starts before and stops after the handlers run.
    public var registerCommands: @Sendable (inout CommandRouter, PostgresPool, RPCClient) throws -> Void

    public init(name: ServiceName, migrations: [Migration],
                registerCommands: @escaping @Sendable (inout CommandRouter, PostgresPool, RPCClient) throws -> Void = { _, _, _ in }) {
        self.name = name
        self.migrations = migrations
        self.registerCommands = registerCommands
    }
}
