import HTTPServer
import Messaging
import Metrics
import ParseWire
import Runtime

/// The gateway process: the HTTP server in front, one broker connection behind it for every request in flight.
public final class Gateway: Sendable {
    private let configuration: GatewayConfiguration
    private let client: RPCClient
    private let sessions: AuthSessionResolver
    private let server: HTTPServer
    private let rateLimiter: RateLimiter
    private let logger: Logger
    private let requestCounts: RequestCountReporter
    private let scriptLogs: ScriptLogShipper

    public convenience init(configuration: GatewayConfiguration, sessionCacheTimeToLive: Duration = .seconds(5),
                            logger: Logger) throws {
        try self.init(configuration: configuration,
                      bus: RPCClient(url: configuration.amqpURL, name: "gateway", eventExchange: configuration.eventExchange,
                                     logger: logger),
                      sessionCacheTimeToLive: sessionCacheTimeToLive, logger: logger)
    }

    /// `bus`: the client every request's command goes through, started and stopped with the gateway.
    public init(configuration: GatewayConfiguration, bus: RPCClient, sessionCacheTimeToLive: Duration = .seconds(5),
                logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        client = bus
        sessions = AuthSessionResolver(client: client, configuration: configuration,
                                       cacheTimeToLive: sessionCacheTimeToLive, logger: logger)
        rateLimiter = configuration.rateLimits.isEmpty ? .none : RateLimiter(
            rules: configuration.rateLimits,
            counter: RateLimitCounter(url: configuration.rateLimitDatabaseURL, logger: logger), logger: logger)
        scriptLogs = ScriptLogShipper(client: client, logger: logger)
        let counter = RequestCounter()
        requestCounts = RequestCountReporter(counter: counter, client: client, interval: configuration.requestCountInterval,
                                             timeout: configuration.requestTimeout, logger: logger)
        let apps = AppDirectory(client: client, timeout: configuration.requestTimeout)
        let api = InstrumentedResponder(
            inner: GatewayResponder(configuration: configuration, client: client, sessions: sessions,
                                    rateLimiter: rateLimiter, scriptLogs: scriptLogs, apps: apps, requestCounts: counter,
                                    logger: logger),
            metrics: configuration.metricsEnabled ? GatewayMetrics() : nil, requestCounts: counter,
            masterKey: configuration.masterKey, queueDepths: DeadLetterQueues(url: configuration.amqpURL, timeoutSeconds: 1))
        MetricsSwitch.set(configuration.metricsEnabled)
        if configuration.metricsEnabled { ProcessMetrics.register() }
        let responder: any HTTPResponder
        if let dashboard = configuration.dashboard {
            responder = DashboardResponder(
                inner: api, configuration: dashboard, assets: try DashboardAssets(directory: dashboard.assetsDirectory),
                cookies: DashboardSessionCookie(secret: configuration.masterKey ?? "", sessionLength: dashboard.sessionLength),
                applicationId: configuration.applicationId, masterKey: configuration.masterKey ?? "",
                readOnlyMasterKey: configuration.readOnlyMasterKey, clientKeys: configuration.clientKeys,
                mountPath: configuration.mountPath, graphQLPath: configuration.graphQLPath,
                fallbackHost: "\(configuration.host):\(configuration.port)",
                imageSources: configuration.publicServerURL.map { [$0] } ?? [],
                apps: DashboardAppAccess(directory: apps, client: client, timeout: configuration.requestTimeout))
        } else {
            responder = api
        }
        var http = HTTPServerConfiguration(
            host: configuration.host, port: configuration.port, threads: configuration.httpThreads,
            connectionLimit: configuration.connectionLimit, perIPConnectionLimit: configuration.perIPConnectionLimit,
            connectionTimeoutSeconds: configuration.connectionTimeoutSeconds,
            headersTimeoutSeconds: configuration.headersTimeoutSeconds,
            maxBodyBytes: configuration.maxBodyBytes,
            payloadTooLarge: ParseResponses.payloadTooLarge, badRequest: ParseResponses.badRequest)
        http.bodyBytesInFlight = configuration.bodyBytesInFlight
        if configuration.tasksOnBrokerThread { http.smallRequestExecutor = client.connectionExecutor }
        http.bodyBudgetExceeded = ParseResponses.error(ParseError(
            .connectionFailed, "Service unavailable: too many large requests at once. Retry later."))
        http.upgradeUpstream = configuration.liveQueryUpstream.map {
            // GraphQL subscriptions (graphql-transport-ws) are live's too, at the GraphQL path.
            UpgradeUpstream(host: $0.host, port: $0.port, pathPrefixes: [configuration.mountPath] + [configuration.graphQLPath].compactMap { $0 })
        }
        server = HTTPServer(configuration: http, responder: responder)
    }

    public var port: UInt16 { server.port }

    /// Creates the rate limit counters' table when rules are configured (nothing otherwise).
    public func prepare() async throws {
        try await rateLimiter.counter?.prepare()
    }

    public func start() throws {
        client.start()
        sessions.start()
        scriptLogs.start()
        try server.start()
        let base = "http://\(configuration.host):\(server.port)"
        logger.info("listening", ["url": base + configuration.mountPath])
        if let dashboard = configuration.dashboard { logger.info("dashboard", ["url": base + dashboard.path + "/"]) }
        requestCounts.start()
    }

    /// Stops accepting, lets requests in flight finish, then closes the broker connection.
    public func stop() async {
        await server.shutdown(gracePeriod: configuration.requestTimeout + .seconds(1))
        await requestCounts.stop()
        await sessions.stop()
        await scriptLogs.stop()
        await client.stop()
        await rateLimiter.counter?.close()
    }

    /// The whole life of the process; returns its exit status.
    public static func main() async -> Int32 {
        let configuration: GatewayConfiguration
        let sessionCacheTimeToLive: Duration
        do {
            configuration = try GatewayConfiguration.fromEnvironment()
            sessionCacheTimeToLive = try AuthSessionResolver.cacheTimeToLive()
        } catch {
            Logger(service: "gateway").error("invalid configuration", ["error": "\(error)"])
            return 2
        }
        let logger = Logger(service: "gateway", level: configuration.logLevel)
        ScriptLogTap.shared.keep(configuration.keptLogLevel)
        let gateway: Gateway
        do {
            gateway = try Gateway(configuration: configuration, sessionCacheTimeToLive: sessionCacheTimeToLive, logger: logger)
            try await gateway.prepare()
            try gateway.start()
        } catch {
            logger.error("cannot start", ["error": "\(error)"])
            return 1
        }
        let cleanup: [@Sendable () async -> Void] = gateway.rateLimiter.counter.map { counter in
            [{ await counter.runCleanup() }]
        } ?? []
        let signal = await ShutdownSignal.wait(whileRunning: cleanup)
        logger.info("stopping", ["signal": signal])
        await gateway.stop()
        logger.info("stopped")
        return 0
    }
}
