import Contracts
import HTTPClient
import ParseWire
import Messaging
import Runtime
import ServiceKit
import Storage

/// The `cloud` service: hook registrations (webhooks and worker queues) and job runs in its own database; runs
/// functions, jobs and triggers on their targets for the gateway and the writing services.
public enum CloudService: BuildableService {
    public static let name = ServiceName.cloud

    /// Everything the service reads from its environment, read once at start.
    public struct Configuration: ServiceSettings {
        public var service: ServiceConfiguration
        public var cloud: CloudConfiguration

        public static func fromEnvironment(_ env: Environment = Environment()) throws -> Configuration {
            Configuration(service: try ServiceConfiguration.fromEnvironment(.cloud, env),
                          cloud: try CloudConfiguration.fromEnvironment(env))
        }
    }

    public static let migrations: [Migration] = [OutboxMigration.migration, CloudMigrations.tables, CloudMigrations.generations,
                                                   CloudMigrations.scriptLogs, CloudMigrations.jobSchedules,
                                                   OutboxMigration.claims(version: 6)]

    /// The service's handlers over `bus` (workers' queues, `_User` lookups) and its database.
    public static func build(configuration service: Configuration, bus calls: RPCClient,
                             database pool: PostgresPool) -> ServiceHandlers {
        var router = CommandRouter()
        let configuration = service.cloud
        let logger = Logger(service: "cloud", level: service.service.logLevel)
        let store = HookStore(pool: pool)
        let directory = TargetDirectory(source: store)
        let caller = TargetCaller(webhooks: HTTPClient(label: "cloud-webhooks"), calls: calls, webhookKey: configuration.webhookKey,
                                  logger: logger)
        let users = CallerUsers(calls: calls, timeout: configuration.callTimeout)
        let functions = FunctionRunner(directory: directory, caller: caller, users: users,
                                       timeout: configuration.callTimeout, logger: logger)
        let triggers = TriggerRunner(directory: directory, caller: caller, users: users,
                                     timeout: configuration.callTimeout)
        let statuses = JobStatusStore(pool: pool)
        let jobs = JobRunner(directory: directory, caller: caller, statuses: statuses, configuration: configuration,
                             logger: logger, running: OwnedTasks("cloud jobs"))
        let announcer = GenerationAnnouncer(calls: calls, timeout: configuration.callTimeout)
        let scriptLogs = ScriptLogStore(pool: pool, retentionDays: configuration.scriptLogRetentionDays,
                                        maxLines: configuration.scriptLogMaxLines)
        let scheduleStore = JobScheduleStore(pool: pool)
        let rest = CloudRESTHandler(hooks: HooksRoutes(store: store, directory: directory, announcer: announcer),
                                    functions: functions,
                                    jobs: jobs, statuses: statuses, scriptLogs: scriptLogs,
                                    schedules: JobScheduleRoutes(store: scheduleStore, directory: directory),
                                    workers: WorkerDirectory(pool: pool, queues: DeadLetterQueues(url: service.service.amqpURL,
                                                                                                  timeoutSeconds: 2)))

        router.register(RESTRequest.type, RESTRequest.self) { command, _ in try await rest.handle(command) }
        router.register(RunCloudFunction.type, RunCloudFunction.self) { command, _ in
            let cloudContext = command.payload.headers["x-parse-cloud-context"].flatMap { JSONValue.parse($0) }
            return try await functions.run(command.payload, cloudContext: cloudContext?.objectValue.map { .object($0) },
                                           requestId: command.requestId, identity: command.identity)
        }
        router.register(StartCloudJob.type, StartCloudJob.self) { command, _ in
            try await jobs.start(command.payload, requestId: command.requestId, identity: command.identity)
        }
        router.register(RunTrigger.type, RunTrigger.self) { command, _ in
            try await triggers.run(command.payload, requestId: command.requestId, identity: command.identity)
        }
        router.register(ListTriggers.type, ListTriggers.self) { _, _ in try await triggers.list() }
        router.register(AppendScriptLogs.type, AppendScriptLogs.self) { command, _ -> Empty in
            try await scriptLogs.append(command.payload.entries)
            return Empty()
        }
        router.register(RegisterCloudWorker.type, RegisterCloudWorker.self) { command, log in
            guard command.identity.isMaster else {
                throw ParseError(.operationForbidden, "Registering a Cloud Code worker needs the master identity.")
            }
            if let generation = try await store.register(command.payload) {
                await directory.invalidate()
                try await announcer.announce(generation, requestId: command.requestId)
            }
            log.info("worker registered", ["queue": command.payload.queue,
                                           "functions": command.payload.functions.joined(separator: ","),
                                           "jobs": command.payload.jobs.joined(separator: ","),
                                           "triggers": "\(command.payload.triggers.count)"])
            return Empty()
        }
        let pruning = BackgroundJob(name: "script log pruning") {
            while !Task.isCancelled {
                do {
                    try await scriptLogs.prune(now: ScriptLogStore.now())
                } catch {
                    logger.warning("script logs not pruned", ["error": "\(error)"])
                }
                try? await Task.sleep(for: .seconds(60))
            }
        }
        let scheduler = JobScheduler(store: scheduleStore, jobs: jobs, logger: logger)
        return ServiceHandlers(router: router, jobs: [pruning, BackgroundJob(name: "job schedules") { await scheduler.run() },
                                                      .owning(jobs.running)])
    }
}
