import HTTPServer
import Metrics
import Runtime

/// A backend service's metrics port (`PARSE_METRICS_PORT`): `GET /metrics` and nothing else, answered on the
/// server's own thread (writing the text takes no I/O but the small reads of `/proc/self`).
public final class MetricsServer: Sendable {
    private let server: HTTPServer
    private let logger: Logger
    private let host: String

    public init(host: String, port: UInt16, registry: MetricsRegistry = .shared, logger: Logger) {
        self.host = host
        self.logger = logger
        server = HTTPServer(configuration: HTTPServerConfiguration(host: host, port: port, threads: 1,
                                                                   connectionLimit: 64, maxBodyBytes: 0),
                            responder: MetricsResponder(registry: registry))
    }

    /// The port bound (the one the system chose when 0 was asked).
    public var port: UInt16 { server.port }

    public func start() throws {
        try server.start()
        logger.info("serving metrics", ["url": "http://\(host):\(server.port)/metrics"])
    }

    public func stop() async {
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Starts one when `settings` asks for it; a port that cannot be bound is logged and the service runs on
    /// without metrics rather than not at all.
    public static func start(_ settings: MetricsSettings, logger: Logger) -> MetricsServer? {
        guard settings.enabled, let port = settings.port else { return nil }
        let server = MetricsServer(host: settings.host, port: port, logger: logger)
        do {
            try server.start()
            return server
        } catch {
            logger.error("cannot serve metrics", ["error": "\(error)", "port": String(port)])
            return nil
        }
    }
}

struct MetricsResponder: HTTPResponder {
    let registry: MetricsRegistry

    func immediateResponse(to request: HTTPRequest) -> HTTPResponse? {
        guard request.path == "/metrics" else { return MetricsPage.notFound }
        guard request.method == "GET" || request.method == "HEAD" else { return MetricsPage.methodNotAllowed }
        return MetricsPage.response(registry)
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        immediateResponse(to: request) ?? MetricsPage.notFound
    }
}

extension MetricsServer {
    /// For a process that is not a `ServiceHost` service (live, push-adapter): reads `PARSE_METRICS` and
    /// `PARSE_METRICS_PORT`, exports the process's figures and starts the port when one is set.
    public static func fromEnvironment(logger: Logger) throws -> MetricsServer? {
        let settings = try MetricsSettings.fromEnvironment()
        MetricsSwitch.set(settings.enabled)
        if settings.enabled { ProcessMetrics.register() }
        return start(settings, logger: logger)
    }
}
