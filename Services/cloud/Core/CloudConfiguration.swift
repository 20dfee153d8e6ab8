import Runtime

/// The cloud service's own settings (README, "Configuration").
public struct CloudConfiguration: Sendable {
    /// Sent as `X-Parse-Webhook-Key` with every webhook call (`PARSE_SERVER_WEBHOOK_KEY`); nil sends none.
    public var webhookKey: String?
    /// The longest a function or trigger target may take (`PARSE_CLOUD_TIMEOUT_MS`); the caller's own deadline
    /// bounds it too.
    public var callTimeout: Duration
    /// The longest a job may run (`PARSE_CLOUD_JOB_TIMEOUT_MS`) before it is recorded as failed.
    public var jobTimeout: Duration
    /// How long `/scriptlog` keeps a line (`PARSE_SCRIPTLOG_RETENTION_DAYS`), and how many lines at most
    /// (`PARSE_SCRIPTLOG_MAX_LINES`): the older ones are deleted first.
    public var scriptLogRetentionDays: Int
    public var scriptLogMaxLines: Int

    public init(webhookKey: String? = nil, callTimeout: Duration = .seconds(10), jobTimeout: Duration = .seconds(600),
                scriptLogRetentionDays: Int = 7, scriptLogMaxLines: Int = 100_000) {
        self.webhookKey = webhookKey
        self.callTimeout = callTimeout
        self.jobTimeout = jobTimeout
        self.scriptLogRetentionDays = scriptLogRetentionDays
        self.scriptLogMaxLines = scriptLogMaxLines
    }

    public static func fromEnvironment(_ env: Environment = Environment()) throws -> CloudConfiguration {
        let key = env.string("PARSE_SERVER_WEBHOOK_KEY", default: "")
        return CloudConfiguration(
            webhookKey: key.isEmpty ? nil : key,
            callTimeout: .milliseconds(try env.int("PARSE_CLOUD_TIMEOUT_MS", default: 10_000, in: 1...3_600_000)),
            jobTimeout: .milliseconds(try env.int("PARSE_CLOUD_JOB_TIMEOUT_MS", default: 600_000, in: 1...86_400_000)),
            scriptLogRetentionDays: try env.int("PARSE_SCRIPTLOG_RETENTION_DAYS", default: 7, in: 1...3_650),
            scriptLogMaxLines: try env.int("PARSE_SCRIPTLOG_MAX_LINES", default: 100_000, in: 1...100_000_000))
    }
}
