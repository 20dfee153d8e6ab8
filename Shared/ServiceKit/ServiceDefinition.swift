import Contracts
import Messaging
import Runtime
import Storage

/// What makes one backend service: its name, its database migrations, the commands it handles and the background
/// jobs it runs.
public struct ServiceDefinition: Sendable {
    public var name: ServiceName
    public var migrations: [Migration]
    /// Unacknowledged commands the service takes at once unless `PARSE_AMQP_PREFETCH` says otherwise.
    public var defaultPrefetch: Int
    /// Minutes a published event stays in the outbox unless `PARSE_OUTBOX_RETENTION_MINUTES` says otherwise; 0
    /// deletes it once the broker confirmed it.
    public var defaultOutboxRetentionMinutes: Int
    /// Server settings every session to the service's database starts with (`PostgresConfiguration.settings`).
    public var databaseSettings: [String: String]
    /// Registers the service's command handlers and adds its background jobs; they reach the service's own
    /// database through the pool and other services through the client, which the host starts before and stops
    /// after the handlers and jobs run. The host starts the jobs once the service consumes its queue and cancels
    /// them while draining.
    public var registerCommands: @Sendable (inout CommandRouter, PostgresPool, RPCClient, inout [BackgroundJob]) throws -> Void
    /// Registers another app's handlers and jobs, for a service whose handlers say which app they serve (auth's
    /// mails and public pages name the app); without it, an app's are made by `registerCommands`.
    public var registerAppCommands: (@Sendable (AppRecord, inout CommandRouter, PostgresPool, RPCClient, inout [BackgroundJob]) throws
                                     -> Void)?
    /// Registers the commands only the stack's own app answers, never another app's (auth's app registry).
    public var registerStackCommands: @Sendable (inout CommandRouter, PostgresPool, RPCClient) -> Void = { _, _, _ in }
    /// Run once after the migrations, before the service takes commands (posts applies the app's schema
    /// definitions here); an error stops the start.
    public var prepare: @Sendable (PostgresPool, Logger) async throws -> Void

    public init(name: ServiceName, migrations: [Migration], defaultPrefetch: Int = 32,
                defaultOutboxRetentionMinutes: Int = 1_440, databaseSettings: [String: String] = [:],
                prepare: @escaping @Sendable (PostgresPool, Logger) async throws -> Void = { _, _ in },
                registerCommands: @escaping @Sendable (inout CommandRouter, PostgresPool, RPCClient, inout [BackgroundJob]) throws -> Void
                    = { _, _, _, _ in }) {
        self.prepare = prepare
        self.name = name
        self.migrations = migrations
        self.defaultPrefetch = defaultPrefetch
        self.defaultOutboxRetentionMinutes = defaultOutboxRetentionMinutes
        self.databaseSettings = databaseSettings
        self.registerCommands = registerCommands
    }
}
