import Contracts
import Messaging
import ParseWire
import Runtime
import Storage

/// The apps a service serves besides the stack's own. Each has a database of its own (the service's database name
/// followed by `_app_<application id>`), migrated as the service's own, with the handlers, background jobs and
/// outbox relay the service's definition makes, over that database alone: no cache, statement or job of one app
/// sees another's. An app is opened by its first command, once the registry (`auth`) says it exists, and at start
/// for every app whose database is there already, so that its outbox and jobs run without waiting for a request.
actor AppTenants: AppRouters {
    private struct Tenant: Sendable {
        let router: CommandRouter
        let pool: PostgresPool
        let jobs: BackgroundJobs
    }

    /// Connections each app's pool may hold: apps share the database server's connections, so fewer than the
    /// stack's own app.
    static let poolSize = 2
    /// How often an app's relay reads its outbox when nothing woke it. Its writers publish their own events at
    /// commit; the read only finds what another process left, and twenty apps polling as often as the stack's own
    /// cost the database more than the requests did.
    static let relayPoll = Duration.seconds(1)

    private let definition: ServiceDefinition
    private let configuration: ServiceConfiguration
    private let calls: RPCClient
    private let publisher: any ImmediateEventSink
    private let logger: Logger
    private enum Slot {
        case open(Tenant)
        /// Being opened; these callers wait for it.
        case opening([CheckedContinuation<Tenant, any Error>])
    }

    private var slots: [String: Slot] = [:]
    private let openings = OwnedTasks("app openings")
    private var stopped = false

    init(definition: ServiceDefinition, configuration: ServiceConfiguration, calls: RPCClient,
         publisher: any ImmediateEventSink, logger: Logger) {
        self.definition = definition
        self.configuration = configuration
        self.calls = calls
        self.publisher = publisher
        self.logger = logger
    }

    func router(for app: String) async throws -> CommandRouter {
        try await tenant(app).router
    }

    /// The prefix of every app database's name.
    static func databasePrefix(_ configuration: ServiceConfiguration) throws -> String {
        try PostgresDatabase.name(in: configuration.databaseURL) + "_app_"
    }

    /// Opens every app whose database exists; an app the registry no longer knows is left closed.
    func openExisting() async {
        do {
            let prefix = try Self.databasePrefix(configuration)
            for name in try await PostgresDatabase.names(startingWith: prefix, near: configuration.databaseURL) {
                let app = String(name.dropFirst(prefix.count))
                do {
                    _ = try await tenant(app)
                } catch {
                    logger.warning("an app's database was not opened", ["app": app, "error": "\(error)"])
                }
            }
        } catch {
            logger.warning("the apps' databases could not be listed", ["error": "\(error)"])
        }
    }

    /// Closes what the service holds of `app` and drops its database, once the registry no longer has it.
    func drop(_ app: String) async throws {
        guard AppContext.isValidId(app) else { throw Self.unknown(app) }
        do {
            _ = try await resolve(app)
            throw ParseError(.operationForbidden, "The app \(app) still exists: delete it first.")
        } catch let error as ParseError where error.code == Self.unknownCode {}
        await close(app)
        let url = try PostgresDatabase.url(configuration.databaseURL, database: try Self.databasePrefix(configuration) + app)
        try await PostgresDatabase.drop(url: url, logger: logger)
    }

    /// Closes what the service holds of `app` (a deleted app): its pool and jobs. A later command of the app opens
    /// it again only if the registry has it.
    func close(_ app: String) async {
        switch slots.removeValue(forKey: app) {
        case .open(let tenant):
            await close(tenant)
            logger.info("app closed", ["app": app])
        case .opening(let waiters): for waiter in waiters { waiter.resume(throwing: Self.unknown(app)) }
        case nil: break
        }
    }

    func stop() async {
        stopped = true
        await openings.stop()
        let held = slots
        slots = [:]
        for slot in held.values {
            switch slot {
            case .open(let tenant): await close(tenant)
            case .opening(let waiters): for waiter in waiters { waiter.resume(throwing: Self.stopping) }
            }
        }
    }

    private static let stopping = ParseError(.connectionFailed, "The service is stopping.")

    private func tenant(_ app: String) async throws -> Tenant {
        switch slots[app] {
        case .open(let tenant):
            return tenant
        case .opening(let waiters):
            return try await withCheckedThrowingContinuation { slots[app] = .opening(waiters + [$0]) }
        case nil:
            guard !stopped else { throw Self.stopping }
            return try await withCheckedThrowingContinuation { waiter in
                slots[app] = .opening([waiter])
                // Detached: the jobs it starts must not inherit the deadline of the command that asked first.
                if !openings.spawnDetached({ await self.finishOpening(app) }) {
                    slots[app] = nil
                    waiter.resume(throwing: Self.stopping)
                }
            }
        }
    }

    private func finishOpening(_ app: String) async {
        let result: Result<Tenant, any Error>
        do {
            result = .success(try await open(app))
        } catch {
            result = .failure(error)
        }
        guard case .opening(let waiters) = slots[app] else {
            // Stopped or dropped meanwhile.
            if case .success(let tenant) = result { await close(tenant) }
            return
        }
        // A failed opening is tried again by the next command (the registry or the database may answer by then).
        if case .success(let tenant) = result { slots[app] = .open(tenant) } else { slots[app] = nil }
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func open(_ app: String) async throws -> Tenant {
        guard AppContext.isValidId(app) else { throw Self.unknown(app) }
        let record = try await resolve(app)
        let url = try PostgresDatabase.url(configuration.databaseURL, database: try Self.databasePrefix(configuration) + app)
        try await PostgresDatabase.ensureExists(url: url, ownerOnly: true, logger: logger)
        let log = logger.with("app", app)
        let pool = PostgresPool(configuration: PostgresConfiguration(
            url: url, poolSize: min(configuration.databasePoolSize, Self.poolSize),
            settings: ServiceHost.databaseSettings(definition, configuration)), logger: log)
        do {
            _ = try await Migrator.migrate(definition.migrations, on: pool, logger: log)
            var router = CommandRouter()
            var jobs: [BackgroundJob] = []
            // What the handlers and jobs start, and the commands they send, are the app's.
            try AppContext.$current.withValue(app) {
                if let registerAppCommands = definition.registerAppCommands {
                    try registerAppCommands(record, &router, pool, calls, &jobs)
                } else {
                    try definition.registerCommands(&router, pool, calls, &jobs)
                }
            }
            let relay = OutboxRelay(pool: pool, publisher: AppEventSink(inner: publisher, app: app), logger: log,
                                    retention: configuration.outboxRetention, poll: Self.relayPoll, marksAtConfirm: false)
            jobs.append(BackgroundJob(name: "outbox relay") { await relay.run() })
            let running = AppContext.$current.withValue(app) { BackgroundJobs.start(jobs, logger: log) }
            log.info("app opened", ["jobs": running.names.joined(separator: ",")])
            return Tenant(router: router, pool: pool, jobs: running)
        } catch {
            await pool.close()
            throw error
        }
    }

    private func close(_ tenant: Tenant) async {
        await tenant.jobs.stop()
        await tenant.pool.close()
    }

    /// The registry's entry of `app`, asked as the stack's own app (the registry is its).
    private func resolve(_ app: String) async throws -> AppRecord {
        try await calls.resolveApp(app, timeout: configuration.requestTimeout)
    }

    static let unknownCode = ParseError.Code.objectNotFound
    static func unknown(_ app: String) -> ParseError { ParseError(unknownCode, "No app has the id \(app).") }
}

/// How often a job of an app's polls its database when nothing woke it: as the stack's own app's job does, but at
/// most once a second for the other apps, whose jobs run side by side (one per app and job).
public enum AppPolling {
    public static func interval(_ stackApp: Duration) -> Duration {
        AppContext.current == nil ? stackApp : max(stackApp, AppTenants.relayPoll)
    }
}
