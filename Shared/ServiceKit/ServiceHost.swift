import Contracts
import Foundation
import Messaging
import Metrics
import MetricsHTTP
import ParseWire
import Runtime
import Storage

/// Runs a backend service: creates and migrates its database, consumes its command queue, answers `ping.v1`,
/// and on SIGTERM/SIGINT stops taking commands, finishes the ones in progress and closes its connections.
public enum ServiceHost {
    public static let version = "0.1.0"

    /// The whole life of the process; returns its exit status.
    public static func main(_ definition: ServiceDefinition, arguments: [String] = CommandLine.arguments) async -> Int32 {
        await main(definition.name, arguments: arguments) {
            (try ServiceConfiguration.fromEnvironment(definition.name, defaultPrefetch: definition.defaultPrefetch,
                                                      defaultOutboxRetentionMinutes: definition.defaultOutboxRetentionMinutes),
             definition)
        }
    }

    /// The whole life of the process; returns its exit status. `configure` reads the service's whole
    /// configuration, once, and makes its definition from it; a malformed setting stops the process here (status
    /// 2, the reason in the log) instead of when a handler first needs it.
    public static func main(_ name: ServiceName, arguments: [String] = CommandLine.arguments,
                            configure: () throws -> (ServiceConfiguration, ServiceDefinition)) async -> Int32 {
        let configuration: ServiceConfiguration
        let definition: ServiceDefinition
        do {
            (configuration, definition) = try configure()
        } catch {
            Logger(service: name.rawValue).error("invalid configuration", ["error": "\(error)"])
            return 2
        }
        let logger = Logger(service: definition.name.rawValue, level: configuration.logLevel)
        if arguments.contains("--healthcheck") {
            return await HealthCheck.run(configuration, logger: logger) ? 0 : 1
        }
        let metrics: MetricsSettings
        do {
            metrics = try MetricsSettings.fromEnvironment()
        } catch {
            logger.error("invalid configuration", ["error": "\(error)"])
            return 2
        }
        do {
            try await run(definition, configuration: configuration, metrics: metrics, logger: logger)
            return 0
        } catch {
            logger.error("stopped on an error", ["error": "\(error)"])
            return 1
        }
    }

    static func run(_ definition: ServiceDefinition, configuration: ServiceConfiguration,
                    metrics: MetricsSettings = MetricsSettings(), logger: Logger) async throws {
        ScriptLogTap.shared.keep(configuration.keptLogLevel)
        logger.info("starting", ["version": version, "database": (try? PostgresDatabase.name(in: configuration.databaseURL)) ?? "?"])
        MetricsSwitch.set(metrics.enabled)
        if metrics.enabled { ProcessMetrics.register() }
        let metricsServer = MetricsServer.start(metrics, logger: logger)
        let startDeadline = ContinuousClock.now + .seconds(120)
        try await waitForDatabase(configuration, until: startDeadline, logger: logger)
        let pool = PostgresPool(configuration: PostgresConfiguration(url: configuration.databaseURL,
                                                                     poolSize: configuration.databasePoolSize,
                                                                     settings: databaseSettings(definition, configuration)),
                                logger: logger)
        let applied = try await migrate(definition.migrations, on: pool, until: startDeadline, logger: logger) {
            try await waitForDatabase(configuration, until: startDeadline, logger: logger)
        }
        logger.info("database ready", ["migrations.applied": applied.map(String.init).joined(separator: ",")])
        try await definition.prepare(pool, logger)

        var router = CommandRouter()
        let pong = PongSource(service: definition.name)
        router.register(Ping.type, Ping.self) { _, _ in try await pong.answer(pool: pool) }
        if configuration.faultInjection {
            logger.warning("fault injection is on: fault.crash.v1 crashes this process")
            router.register(CrashService.type, CrashService.self) { _, _ -> Empty in
                fatalError("fault.crash.v1: crashing on purpose")
            }
        }
        // One connection for every call this service's handlers make to other services (posts asking auth for
        // users, votes asking posts to apply ballots).
        let calls = RPCClient(url: configuration.amqpURL, name: "\(definition.name.rawValue)-calls",
                              eventExchange: configuration.eventExchange, logger: logger)
        calls.start()
        let scriptLogs = ScriptLogShipper(client: calls, logger: logger)
        let publisher = EventPublisher(url: configuration.amqpURL, name: "\(definition.name.rawValue)-events",
                                       exchange: configuration.eventExchange, logger: logger)
        // A malformed setting of the service's own stops it here, with the reason in the log.
        var jobs: [BackgroundJob] = []
        var handlers = CommandRouter()
        try definition.registerCommands(&handlers, pool, calls, &jobs)
        let apps = AppTenants(definition: definition, configuration: configuration, calls: calls, publisher: publisher,
                              logger: logger)
        router.merge(handlers.dispatchingByApp(apps))
        router.register(DropAppData.type, DropAppData.self) { command, _ -> Empty in
            try await apps.drop(command.payload.applicationId)
            return Empty()
        }
        definition.registerStackCommands(&router, pool, calls)
        let appDeletions = AppDeletionListener(service: definition.name, url: configuration.amqpURL,
                                               exchange: configuration.eventExchange, logger: logger) { app in
            await apps.close(app)
        }

        let server = CommandServer(
            service: definition.name, url: configuration.amqpURL, router: router,
            options: .init(prefetch: configuration.prefetch, maxAttempts: configuration.maxDeliveryAttempts,
                           eventExchange: configuration.eventExchange,
                           crashJournal: CrashJournal.open(directory: configuration.crashJournalDirectory,
                                                           service: definition.name.rawValue, logger: logger),
                           handlesOnConnectionThread: configuration.tasksOnBrokerThread),
            logger: logger)
        server.start()
        publisher.start()
        appDeletions.start()
        let relay = OutboxRelay(pool: pool, publisher: publisher, logger: logger, retention: configuration.outboxRetention)
        let housekeeping = [BackgroundJob(name: "outbox relay") { await relay.run() },
                            BackgroundJob(name: "script log shipping") { await scriptLogs.run() },
                            BackgroundJob(name: "apps' opening") { await apps.openExisting() }]
            + (metrics.enabled ? [OutboxLag.sampler(pool)] : [])
        let background = BackgroundJobs.start(housekeeping + jobs, logger: logger)
        logger.info("consuming commands", ["queue": definition.name.commandQueue, "commands": router.types.joined(separator: ","),
                                           "jobs": background.names.joined(separator: ",")])

        let signal = await ShutdownSignal.wait()
        logger.info("stopping", ["signal": signal])
        await server.drain(grace: .seconds(10))
        await appDeletions.stop()
        await apps.stop()
        await background.stop()
        await scriptLogs.flush(timeout: ScriptLogShipper.lastFlushTimeout)
        await calls.stop()
        await publisher.stop()
        await pool.close()
        await metricsServer?.stop()
        logger.info("stopped")
    }

    /// The service's own session settings, with the statement timeout unless the service sets one itself.
    static func databaseSettings(_ definition: ServiceDefinition, _ configuration: ServiceConfiguration) -> [String: String] {
        var settings = definition.databaseSettings
        if settings["statement_timeout"] == nil {
            settings["statement_timeout"] = String(configuration.statementTimeoutMilliseconds)
        }
        return settings
    }

    /// The migrations, run again after a transient failure until `deadline`: on a cluster still forming, the node
    /// the database waited for can change role before the migrations' connection reaches it ("session is
    /// read-only", a role not there yet), which ended the service. `waitAgain` waits for the database first.
    static func migrate(_ migrations: [Migration], on pool: PostgresPool, until deadline: ContinuousClock.Instant,
                        logger: Logger, waitAgain: () async throws -> Void) async throws -> [Int] {
        while true {
            do {
                return try await Migrator.migrate(migrations, on: pool, logger: logger)
            } catch let error as PostgresError where error.isTransient && ContinuousClock.now < deadline {
                logger.warning("database not ready for the migrations yet; retrying", ["error": "\(error)"])
                try await Task.sleep(for: .milliseconds(500))
                try await waitAgain()
            }
        }
    }

    /// At start-up PostgreSQL may still be starting (compose, a reboot): wait for it instead of crash-looping.
    private static func waitForDatabase(_ configuration: ServiceConfiguration, until deadline: ContinuousClock.Instant,
                                        logger: Logger) async throws {
        var attempt = 0
        while true {
            do {
                try await PostgresDatabase.ensureExists(url: configuration.databaseURL, logger: logger)
                // The database must take a connection too: on a cluster still forming, the node that answered for
                // `postgres` may not be the one the service's connections reach, and a database not there yet
                // stopped the service.
                let connection = try await PostgresConnection.connect(url: configuration.databaseURL)
                await connection.close()
                return
            } catch {
                attempt += 1
                guard ContinuousClock.now < deadline else { throw error }
                if attempt == 1 || attempt % 10 == 0 {
                    logger.warning("database not reachable yet; retrying", ["error": "\(error)"])
                }
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }
}

/// Answers pings with the service's identity and whether its database answers right now.
struct PongSource: Sendable {
    let service: ServiceName
    let instance = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"

    /// The outbox's lag is read in the statement that proves the database answers.
    func answer(pool: PostgresPool) async throws -> Pong {
        let lag: OutboxLag
        do {
            lag = try await OutboxLag.read(pool)
        } catch {
            throw ParseError(.internalServerError, "The \(service.rawValue) service cannot reach its database.")
        }
        var pong = Pong(service: service.rawValue, instance: instance, database: "ok", version: ServiceHost.version,
                        outboxPending: lag.pending, outboxOldestAgeSeconds: lag.oldestAgeSeconds)
        if let replication = try? await DatabaseReplication.read(pool) {
            pong.databaseServer = replication.server
            pong.standbys = replication.standbys
            pong.replicationLagBytes = replication.lagBytes
        }
        return pong
    }
}
