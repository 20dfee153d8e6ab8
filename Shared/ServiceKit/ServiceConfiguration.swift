import Contracts
import Messaging
import Runtime

/// Settings every backend service reads from its environment (see the README's configuration table).
public struct ServiceConfiguration: Sendable {
    public var service: ServiceName
    public var applicationId: String
    public var amqpURL: AMQPURL
    public var databaseURL: String
    public var eventExchange: String
    public var logLevel: LogLevel
    /// The lines kept for `GET /scriptlog` (`PARSE_SERVER_LOG_LEVEL`); nil keeps none.
    public var keptLogLevel: ScriptLogLevel?
    public var databasePoolSize: Int
    public var prefetch: Int
    public var maxDeliveryAttempts: Int
    /// How long published outbox rows are kept before the relay deletes them (`PARSE_OUTBOX_RETENTION_MINUTES`);
    /// zero: deleted as soon as the broker confirmed them.
    public var outboxRetention: Duration
    /// PostgreSQL's `statement_timeout` for the service's sessions (`PARSE_DATABASE_STATEMENT_TIMEOUT_MS`; 0: none):
    /// the bound of statements that run outside a request (background jobs), and a second one for those a
    /// request's deadline cancels. Migrations are not bound by it.
    public var statementTimeoutMilliseconds: Int
    /// The gateway's request timeout (`PARSE_REQUEST_TIMEOUT_MS`), which bounds the calls a service makes to others
    /// while it answers a request.
    public var requestTimeout: Duration
    /// How often an after* trigger is tried before it is given up (`PARSE_AFTER_TRIGGER_ATTEMPTS`).
    public var afterTriggerAttempts: Int
    /// Where the process notes the commands in progress, so that one that crashes it is dead-lettered instead of
    /// run again (`PARSE_CRASH_JOURNAL_DIR`; `CrashJournal`). Shared by the processes of a host.
    public var crashJournalDirectory: String
    /// `PARSE_FAULT_INJECTION=1`: the service also takes `fault.crash.v1`, which crashes it. For the tests of crash
    /// recovery only; never set it elsewhere.
    public var faultInjection: Bool
    /// `PARSE_TASKS_ON_BROKER_THREAD` (on unless `false`): commands are handled on the thread of the connection they
    /// arrive on (`ConnectionExecutor`), which spares hand-offs between threads and keeps that work to one core.
    public var tasksOnBrokerThread = true

    /// `defaultPrefetch`: the service's own default for `PARSE_AMQP_PREFETCH` (votes batches what it holds at once,
    /// so it wants more commands in hand than the others); `defaultOutboxRetentionMinutes` likewise for
    /// `PARSE_OUTBOX_RETENTION_MINUTES`.
    public static func fromEnvironment(_ service: ServiceName, _ env: Environment = Environment(),
                                       defaultPrefetch: Int = 32,
                                       defaultOutboxRetentionMinutes: Int = 1_440) throws -> ServiceConfiguration {
        let levelName = env.string("PARSE_LOG_LEVEL", default: "info")
        guard let level = LogLevel(name: levelName) else {
            throw ConfigurationError("PARSE_LOG_LEVEL must be debug, info, warning or error, got '\(levelName)'")
        }
        let requestTimeoutMilliseconds = try env.int("PARSE_REQUEST_TIMEOUT_MS", default: 10_000, in: 1...600_000)
        return ServiceConfiguration(
            service: service,
            applicationId: env.string("PARSE_SERVER_APPLICATION_ID", default: "myAppId"),
            amqpURL: try AMQPURL(env.string("PARSE_AMQP_URL", default: "amqp://guest:guest@127.0.0.1:15682/")),
            databaseURL: env.string("PARSE_DATABASE_URL",
                                    default: "postgres://postgres@127.0.0.1:15432/parse_\(service.rawValue)"),
            eventExchange: env.string("PARSE_EVENTS_EXCHANGE", default: "parse.events"),
            logLevel: level,
            keptLogLevel: try ScriptLogLevel.kept(env),
            databasePoolSize: try env.int("PARSE_DATABASE_POOL_SIZE", default: 4, in: 1...100),
            prefetch: try env.int("PARSE_AMQP_PREFETCH", default: defaultPrefetch, in: 1...10_000),
            maxDeliveryAttempts: try env.int("PARSE_MAX_DELIVERY_ATTEMPTS", default: 5, in: 1...100),
            outboxRetention: .seconds(60 * (try env.int("PARSE_OUTBOX_RETENTION_MINUTES", default: defaultOutboxRetentionMinutes,
                                                    in: 0...525_600))),
            statementTimeoutMilliseconds: try env.int(
                "PARSE_DATABASE_STATEMENT_TIMEOUT_MS", default: requestTimeoutMilliseconds, in: 0...3_600_000),
            requestTimeout: .milliseconds(requestTimeoutMilliseconds),
            afterTriggerAttempts: try env.int("PARSE_AFTER_TRIGGER_ATTEMPTS", default: 10, in: 1...100),
            crashJournalDirectory: env.string("PARSE_CRASH_JOURNAL_DIR",
                                              default: env.string("TMPDIR", default: "/tmp") + "/parse-crash-journals"),
            faultInjection: try env.bool("PARSE_FAULT_INJECTION", default: false),
            tasksOnBrokerThread: try env.bool("PARSE_TASKS_ON_BROKER_THREAD", default: true))
    }
}
