import Foundation
import GraphQL
import Messaging
import MetricsHTTP
import Runtime

/// The gateway's settings, read from the environment with parse-server's variable names where it has one.
public struct GatewayConfiguration: Sendable {
    public var applicationId: String
    public var masterKey: String?
    public var masterKeyIPs: IPAllowList
    /// `PARSE_SERVER_READ_ONLY_MASTER_KEY` (parse-server's `readOnlyMasterKey`): reads like the master key,
    /// writes nothing (119); unset by default.
    public var readOnlyMasterKey: String?
    /// `PARSE_SERVER_MAINTENANCE_KEY`, `PARSE_SERVER_MAINTENANCE_KEY_IPS` (parse-server's `maintenanceKey`,
    /// `maintenanceKeyIps`, loopback only by default): see `MaintenanceScope`; unset by default.
    public var maintenanceKey: String?
    public var maintenanceKeyIPs = IPAllowList.loopback
    /// Any of these configured means every request must carry one of them (or the master key), as parse-server does.
    public var clientKeys: ClientKeys
    public var mountPath: String
    public var host: String
    public var port: UInt16
    public var maxBodyBytes: Int
    /// `PARSE_HTTP_BODY_BYTES_IN_FLIGHT`: request body bytes held at once (503 with `Retry-After` past them, before
    /// the body is read); at least `maxBodyBytes`.
    public var bodyBytesInFlight = 32 << 20
    public var requestTimeout: Duration
    public var readinessTimeout: Duration
    public var amqpURL: AMQPURL
    public var eventExchange: String
    public var logLevel: LogLevel
    /// The lines kept for `GET /scriptlog` (`PARSE_SERVER_LOG_LEVEL`); nil keeps none.
    public var keptLogLevel: ScriptLogLevel?
    /// `PARSE_ACCESS_LOG` (on unless `false`): one line per request (`AccessLine`).
    public var accessLog: Bool
    public var httpThreads: Int
    /// `PARSE_TASKS_ON_BROKER_THREAD` (on unless `false`): a request with a small body is answered on the thread of
    /// the broker connection its commands go through (`HTTPServerConfiguration.smallRequestExecutor`).
    public var tasksOnBrokerThread = true
    public var connectionLimit: Int
    public var perIPConnectionLimit: Int
    public var connectionTimeoutSeconds: Int
    /// `PARSE_HTTP_HEADERS_TIMEOUT`: seconds a connection has to send a whole request head.
    public var headersTimeoutSeconds: Int
    /// `PARSE_PUBLIC_SERVER_URL` (parse-server's `publicServerURL`): the base of file URLs; nil: the request's host.
    public var publicServerURL: String?
    /// `PARSE_VOTE_FIELDS`: increments of these fields go to the votes service.
    var voteFields: VoteRoute.Fields
    /// `PARSE_LIVE_QUERY_UPSTREAM` (`host:port` of the live service, `off` for none): WebSocket upgrades under the
    /// mount path go there, so the SDKs' default `ws://host:port/parse` works on the gateway's port.
    public var liveQueryUpstream: (host: String, port: UInt16)?
    /// `PARSE_METRICS`: whether `GET /metrics` is served and requests are counted (on by default).
    public var metricsEnabled = true
    /// `PARSE_READY_MAX_QUEUE_DEPTH`, `PARSE_READY_MAX_OUTBOX_AGE_MS`: when `/health/ready` answers 503.
    var readinessLimits = ReadinessLimits()
    /// `PARSE_SERVER_IDEMPOTENCY`, `PARSE_SERVER_IDEMPOTENCY_PATHS`: the writes applied once per request id.
    var idempotentPaths = IdempotentPaths.none
    /// `PARSE_SERVER_RATE_LIMIT`: parse-server's `rateLimit` rules.
    var rateLimits: [RateLimitRule] = []
    /// `PARSE_RATE_LIMIT_DATABASE_URL`: where every gateway replica counts the requests the rules limit.
    public var rateLimitDatabaseURL = "postgres://postgres@127.0.0.1:15432/parse_gateway"
    /// The built-in dashboard, nil when off (`PARSE_DASHBOARD_ENABLED`).
    public var dashboard: DashboardConfiguration?
    /// `PARSE_SERVER_ADMIN_KEY`: the key of the app registry's API (`AppsAdmin`, at `AppsAdmin.path`), which creates,
    /// lists and deletes the stack's apps; unset (the default), the API is not served.
    public var adminKey: String?
    /// `PARSE_REQUEST_COUNTS_INTERVAL_MS`: how often the API request counts go to posts.
    public var requestCountInterval: Duration = .seconds(5)
    /// `PARSE_SERVER_REQUEST_COMPLEXITY_BATCH_REQUEST_LIMIT` (parse-server 9's `requestComplexity.batchRequestLimit`):
    /// sub-requests a `/batch` may hold without the master key; -1: any number. parse-server has no limit by
    /// default; here a client cannot hand one service an unbounded amount of work in one request.
    var batchRequestLimit = 10_000
    /// `PARSE_SERVER_ENABLE_SANITIZED_ERROR_RESPONSE` (parse-server 9's `enableSanitizedErrorResponse`, on by
    /// default): refusals say `Permission denied` (`ErrorSanitizer`).
    var sanitizedErrors = true
    /// `PARSE_SERVER_GRAPHQL_PATH` (parse-server's `graphQLPath`, outside the mount: `/graphql`); nil with
    /// `PARSE_SERVER_MOUNT_GRAPHQL=0`: no GraphQL API.
    public var graphQLPath: String? = "/graphql"
    /// `PARSE_SERVER_REQUEST_COMPLEXITY_GRAPHQL_DEPTH` and `..._GRAPHQL_FIELDS` (parse-server 9's
    /// `requestComplexity.graphQLDepth` and `graphQLFields`): how deep a document's fields may nest and how many it
    /// may select, fragments followed; -1 (the default): no bound. The master key is not bound.
    public var graphQLLimits = GraphQLLimits.none
    /// `PARSE_GRAPHQL_MAX_CALLS`: how many calls to the services one GraphQL request may make (each object read,
    /// relation found, write), the master key's too; past it the fields still to resolve fail with 155.
    public var graphQLMaximumCalls = 1_000
    /// `PARSE_SERVER_ROUTE_ALLOW_LIST` (parse-server 9's `routeAllowList`); nil: every route.
    var routeAllowList: RouteAllowList?
    /// `PARSE_SERVER_READ_ONLY_MASTER_KEY_IPS` (parse-server 9's `readOnlyMasterKeyIps`): where the read-only master
    /// key is taken from; every address by default, as parse-server 9 still has it.
    public var readOnlyMasterKeyIPs = try! IPAllowList(["0.0.0.0/0", "::/0"])
    /// parse-server's `fileUpload.allowedFileUrlDomains` (`FileURLDomains`).
    var fileURLDomains = FileURLDomains.any

    public static func fromEnvironment(_ env: Environment = Environment()) throws -> GatewayConfiguration {
        var mount = env.string("PARSE_SERVER_MOUNT_PATH", default: "/parse")
        if !mount.hasPrefix("/") { mount = "/" + mount }
        while mount.count > 1 && mount.hasSuffix("/") { mount.removeLast() }
        let levelName = env.string("PARSE_LOG_LEVEL", default: "info")
        guard let level = LogLevel(name: levelName) else {
            throw ConfigurationError("PARSE_LOG_LEVEL must be debug, info, warning or error, got '\(levelName)'")
        }
        let masterKey = env.optional("PARSE_SERVER_MASTER_KEY") ?? "myMasterKey"
        let readOnlyMasterKey = env.optional("PARSE_SERVER_READ_ONLY_MASTER_KEY")
        if readOnlyMasterKey == masterKey {
            throw ConfigurationError("PARSE_SERVER_READ_ONLY_MASTER_KEY must differ from PARSE_SERVER_MASTER_KEY")
        }
        let host = env.string("PARSE_SERVER_HOST", default: "127.0.0.1")
        let publicServerURL = env.optional("PARSE_PUBLIC_SERVER_URL").map { url in
            var url = url
            while url.hasSuffix("/") { url.removeLast() }
            return url
        }
        var configuration = GatewayConfiguration(
            applicationId: env.string("PARSE_SERVER_APPLICATION_ID", default: "myAppId"),
            masterKey: masterKey,
            masterKeyIPs: try IPAllowList(env.list("PARSE_SERVER_MASTER_KEY_IPS", default: ["127.0.0.1", "::1"])),
            readOnlyMasterKey: readOnlyMasterKey,
            clientKeys: ClientKeys(
                clientKey: env.optional("PARSE_SERVER_CLIENT_KEY"),
                restAPIKey: env.optional("PARSE_SERVER_REST_API_KEY"),
                javascriptKey: env.optional("PARSE_SERVER_JAVASCRIPT_KEY"),
                dotNetKey: env.optional("PARSE_SERVER_DOT_NET_KEY")),
            mountPath: mount,
            host: host,
            port: UInt16(try env.int("PORT", default: 1337, in: 0...65_535)),
            maxBodyBytes: try env.byteSize("PARSE_SERVER_MAX_UPLOAD_SIZE", default: "20mb"),
            requestTimeout: .milliseconds(try env.int("PARSE_REQUEST_TIMEOUT_MS", default: 10_000, in: 1...600_000)),
            readinessTimeout: .milliseconds(try env.int("PARSE_READINESS_TIMEOUT_MS", default: 2_000, in: 1...60_000)),
            amqpURL: try AMQPURL(env.string("PARSE_AMQP_URL", default: "amqp://guest:guest@127.0.0.1:15682/")),
            eventExchange: env.string("PARSE_EVENTS_EXCHANGE", default: "parse.events"),
            logLevel: level,
            keptLogLevel: try ScriptLogLevel.kept(env),
            accessLog: try env.bool("PARSE_ACCESS_LOG", default: true),
            httpThreads: try env.int("PARSE_HTTP_THREADS", default: 2, in: 1...64),
            connectionLimit: try env.int("PARSE_HTTP_CONNECTION_LIMIT", default: 10_000, in: 1...100_000),
            perIPConnectionLimit: try env.int("PARSE_HTTP_PER_IP_CONNECTION_LIMIT", default: 256, in: 0...100_000),
            connectionTimeoutSeconds: try env.int("PARSE_HTTP_CONNECTION_TIMEOUT", default: 10, in: 1...3600),
            headersTimeoutSeconds: try env.int("PARSE_HTTP_HEADERS_TIMEOUT", default: 10, in: 0...3600),
            publicServerURL: publicServerURL,
            voteFields: VoteRoute.Fields(env.list("PARSE_VOTE_FIELDS", default: ["votes"])),
            liveQueryUpstream: try liveQueryUpstream(env))
        configuration.metricsEnabled = try MetricsSettings.fromEnvironment(env).enabled
        configuration.tasksOnBrokerThread = try env.bool("PARSE_TASKS_ON_BROKER_THREAD", default: true)
        configuration.graphQLLimits = try GraphQLLimits.fromEnvironment(env)
        configuration.graphQLMaximumCalls = try env.int("PARSE_GRAPHQL_MAX_CALLS", default: 1_000, in: 1...1_000_000)
        if try env.bool("PARSE_SERVER_MOUNT_GRAPHQL", default: true) {
            var path = env.string("PARSE_SERVER_GRAPHQL_PATH", default: "/graphql")
            if !path.hasPrefix("/") { path = "/" + path }
            while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
            configuration.graphQLPath = path
        } else {
            configuration.graphQLPath = nil
        }
        let maxOutboxAge = try env.int("PARSE_READY_MAX_OUTBOX_AGE_MS", default: 0, in: 0...86_400_000)
        configuration.readinessLimits = ReadinessLimits(
            maxQueueDepth: try env.int("PARSE_READY_MAX_QUEUE_DEPTH", default: 0, in: 0...100_000_000),
            maxOutboxAge: maxOutboxAge == 0 ? nil : .milliseconds(maxOutboxAge))
        configuration.idempotentPaths = try IdempotentPaths.fromEnvironment(env)
        configuration.rateLimits = try RateLimiter.rules(from: env.optional("PARSE_SERVER_RATE_LIMIT"))
        configuration.rateLimitDatabaseURL = env.string("PARSE_RATE_LIMIT_DATABASE_URL",
                                                        default: configuration.rateLimitDatabaseURL)
        configuration.dashboard = try DashboardConfiguration.fromEnvironment(env, host: host, publicServerURL: publicServerURL)
        configuration.requestCountInterval = .milliseconds(
            try env.int("PARSE_REQUEST_COUNTS_INTERVAL_MS", default: 5_000, in: 100...3_600_000))
        configuration.bodyBytesInFlight = max(configuration.maxBodyBytes,
                                              try env.byteSize("PARSE_HTTP_BODY_BYTES_IN_FLIGHT", default: "32mb"))
        configuration.batchRequestLimit = try env.int("PARSE_SERVER_REQUEST_COMPLEXITY_BATCH_REQUEST_LIMIT",
                                                      default: configuration.batchRequestLimit, in: -1...Int(Int32.max))
        configuration.maintenanceKey = env.optional("PARSE_SERVER_MAINTENANCE_KEY")
        if let key = configuration.maintenanceKey, key == masterKey || key == readOnlyMasterKey {
            throw ConfigurationError("PARSE_SERVER_MAINTENANCE_KEY must differ from the master keys")
        }
        configuration.maintenanceKeyIPs = try IPAllowList(
            env.list("PARSE_SERVER_MAINTENANCE_KEY_IPS", default: ["127.0.0.1", "::1"]),
            setting: "PARSE_SERVER_MAINTENANCE_KEY_IPS")
        configuration.fileURLDomains = try FileURLDomains.fromEnvironment(env)
        configuration.routeAllowList = try RouteAllowList.fromEnvironment(env)
        configuration.readOnlyMasterKeyIPs = try IPAllowList(
            env.list("PARSE_SERVER_READ_ONLY_MASTER_KEY_IPS", default: ["0.0.0.0/0", "::/0"]),
            setting: "PARSE_SERVER_READ_ONLY_MASTER_KEY_IPS")
        configuration.adminKey = env.optional("PARSE_SERVER_ADMIN_KEY")
        if let key = configuration.adminKey, key == masterKey || key == readOnlyMasterKey || key == configuration.maintenanceKey {
            throw ConfigurationError("PARSE_SERVER_ADMIN_KEY must differ from the app's keys")
        }
        configuration.sanitizedErrors = try env.bool("PARSE_SERVER_ENABLE_SANITIZED_ERROR_RESPONSE", default: true)
        return configuration
    }

    static func liveQueryUpstream(_ env: Environment) throws -> (host: String, port: UInt16)? {
        let livePort = try env.int("PARSE_LIVE_QUERY_PORT", default: 1338, in: 1...65_535)
        let text = env.string("PARSE_LIVE_QUERY_UPSTREAM", default: "127.0.0.1:\(livePort)")
        if text == "off" { return nil }
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]), port > 0 else {
            throw ConfigurationError("PARSE_LIVE_QUERY_UPSTREAM must be host:port or off, got '\(text)'")
        }
        let host = text[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return (host, port)
    }
}
