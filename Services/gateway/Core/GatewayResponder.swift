import Contracts
import Foundation
import HTTPServer
import Messaging
import ParseGraphQL
import ParseWire
import Runtime

/// The Parse REST front door: CORS and OPTIONS, health and readiness, the application id and keys exactly as
/// parse-server checks them, then the request goes to the service that owns the route and waits for its answer
/// (at most the request timeout: 504 after it).
struct GatewayResponder: HTTPResponder {
    let configuration: GatewayConfiguration
    let client: RPCClient
    let logger: Logger
    let sessions: any SessionResolver
    let rateLimiter: RateLimiter
    /// Flushed before `/scriptlog` is asked, so the answer has every line this gateway wrote before.
    let scriptLogs: ScriptLogShipper?
    private let access: AccessCheck
    private let readiness: Readiness
    /// Each app's GraphQL schema as last built, shared by its requests.
    private let graphQL = GraphQLEndpoints()
    /// The apps besides the stack's own, as the registry answers for them.
    let apps: AppDirectory
    /// Another app's requests count here once its id proved to be an app's (the stack's own count outside).
    let requestCounts: RequestCounter?

    init(configuration: GatewayConfiguration, client: RPCClient, sessions: any SessionResolver = UnresolvedSessions(),
         rateLimiter: RateLimiter = .none, scriptLogs: ScriptLogShipper? = nil, apps: AppDirectory? = nil,
         requestCounts: RequestCounter? = nil, logger: Logger) {
        self.requestCounts = requestCounts
        self.configuration = configuration
        self.scriptLogs = scriptLogs
        self.rateLimiter = rateLimiter
        self.client = client
        self.sessions = sessions
        self.logger = logger
        access = AccessCheck(configuration)
        self.apps = apps ?? AppDirectory(client: client, timeout: configuration.requestTimeout)
        let seconds = max(1, Int(configuration.readinessTimeout.components.seconds))
        readiness = Readiness(client: client, timeout: configuration.readinessTimeout,
                              deadLetters: DeadLetterQueues(url: configuration.amqpURL, timeoutSeconds: seconds),
                              limits: configuration.readinessLimits)
    }

    /// The path below the mount without its leading slash, or nil for a path outside the mount.
    /// Compared as UTF-8 bytes (the mount and the slashes are ASCII): every request asks this a few times, and
    /// comparing characters would segment the whole path into graphemes each time.
    func routePath(_ path: String) -> String? {
        let mount = configuration.mountPath
        let slash = UInt8(ascii: "/")
        var rest = Substring(path)
        if mount != "/" {
            guard path.utf8.starts(with: mount.utf8) else { return nil }
            rest = path[path.utf8.index(path.utf8.startIndex, offsetBy: mount.utf8.count)...]
            guard rest.isEmpty || rest.utf8.first == slash else { return nil }
            // `/parse/health/` is `/parse/health`, as in Express.
            while rest.utf8.last == slash { rest = rest[..<rest.utf8.index(before: rest.utf8.endIndex)] }
        }
        let start = rest.utf8.firstIndex(where: { $0 != slash }) ?? rest.utf8.endIndex
        return String(rest[start...])
    }

    /// The request's route; the outermost responder asks once and hands it to every layer.
    func route(of request: HTTPRequest) -> GatewayRoute {
        if let graphQLPath = configuration.graphQLPath, isGraphQL(request.path, graphQLPath) { return .graphQL }
        if configuration.adminKey != nil, let rest = AppsAdmin.rest(of: request.path) { return .appsAdmin(rest) }
        return GatewayRoute(method: request.method, path: routePath(request.path))
    }

    /// `path` is the GraphQL path, with or without a trailing slash.
    private func isGraphQL(_ path: String, _ graphQLPath: String) -> Bool {
        guard path.utf8.starts(with: graphQLPath.utf8) else { return false }
        let rest = path.utf8.dropFirst(graphQLPath.utf8.count)
        return rest.isEmpty || (rest.count == 1 && rest.first == UInt8(ascii: "/"))
    }

    func immediateResponse(to request: HTTPRequest) -> HTTPResponse? {
        immediateResponse(to: request, route: route(of: request))
    }

    func immediateResponse(to request: HTTPRequest, route: GatewayRoute) -> HTTPResponse? {
        if request.method == "OPTIONS" { return ParseResponses.preflight }
        switch route.destination {
        case .health: return ParseResponses.healthy
        case .unknown where route.path == nil: return ParseResponses.unknownRoute(request.method, request.path)
        default: return nil
        }
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        await respond(to: request, route: route(of: request))
    }

    func respond(to request: HTTPRequest, route: GatewayRoute) async -> HTTPResponse {
        let requestId = request.headers["X-Parse-Request-Id"] ?? TimeOrderedUUID.string()
        let log = logger.with("request.id", requestId)
        return await TraceContext.$current.withValue(Self.trace(request)) {
            await logged(request, log: log) {
                guard let path = route.path else { return ParseResponses.unknownRoute(request.method, request.path) }
                let response = await dispatch(request, route: route, path: path, requestId: requestId, log: log)
                return configuration.sanitizedErrors ? ErrorSanitizer(logger: log).sanitize(response, path: path) : response
            }
        }
    }

    /// The gateway's hop of the client's trace (its `traceparent` header), or of a new one.
    static func trace(_ request: HTTPRequest) -> TraceContext {
        request.headers[TraceContext.header].flatMap(TraceContext.init(traceparent:))?.child() ?? .start()
    }

    /// `answer`, with the access line written after it when the access log is on.
    func logged(_ request: HTTPRequest, log: Logger, _ answer: () async -> HTTPResponse) async -> HTTPResponse {
        guard configuration.accessLog else { return await answer() }
        let started = ContinuousClock.now
        // The trace only feeds the access line at debug: without it, no trace is made or carried.
        let trace = log.level == .debug ? CommandTrace() : nil
        let served = ServedApp()
        let response = await ServedApp.$current.withValue(served) {
            await CommandTrace.$current.withValue(trace) { await answer() }
        }
        AppContext.$current.withValue(served.app) {
            AccessLine.write(request, status: response.status, since: started, trace: trace, to: log)
        }
        return response
    }

    private func dispatch(_ request: HTTPRequest, route: GatewayRoute, path: String, requestId: String,
                          log: Logger) async -> HTTPResponse {
        // An unknown route inside the mount answers 404 only after the keys pass, as parse-server's middleware orders it.
        let owner: ServiceName?
        switch route.destination {
        case .health:
            return ParseResponses.healthy
        case .readiness:
            let report = await readiness.check(requestId: requestId)
            let body = (try? JSONEncoder.sorted.encode(report)).map(Array.init) ?? []
            return report.status == "ok"
                ? ParseResponses.json(200, body)
                : ParseResponses.json(503, body, extra: [("Retry-After", "1")])
        case .files:
            return await FileRequestHandler(configuration: configuration, client: client, sessions: sessions, logger: logger,
                                            apps: apps)
                .respond(to: request, path: path, requestId: requestId, serverURL: serverURL(for: request))
        case .appsAdmin:
            return await AppsAdmin(configuration: configuration, client: client, logger: log)
                .respond(to: request, rest: path, requestId: requestId)
        case .publicPages:
            let forwarder = PublicPagesForwarder(client: client, timeout: configuration.requestTimeout, logger: log)
            // Another app's page is its auth's to answer; an id no app has goes to the stack's, which refuses it.
            var app: AppRecord?
            if let id = PublicPagesForwarder.applicationId(path: path, query: request.query), id != configuration.applicationId {
                do {
                    app = try await apps.app(id, requestId: requestId)
                } catch {
                    // The registry not answering is an outage to retry, not a link that is no app's.
                    return ParseResponses.error(CallFailure.parseError(error, write: false, call: "app lookup", logger: log))
                }
            }
            return await ServedApp.serving(app?.applicationId) {
                await forwarder.respond(to: request, path: path, requestId: requestId, serverURL: serverURL(for: request))
            }
        case .unknown, .graphQL:
            owner = nil
        case .service(let service):
            owner = service
        }
        let body: JSONBody
        do {
            // A GraphQL body is the operation, never a Parse envelope: the keys come from the headers alone.
            body = try JSONBody(route.destination == .graphQL ? [] : request.body)
        } catch {
            return ParseResponses.error(error)
        }
        let credentials = RequestCredentials(headers: request.headers, bodyFields: body.envelope)
        let inProgress = RequestInProgress(request: request, route: route, path: path, owner: owner, body: body,
                                        credentials: credentials, requestId: requestId, log: log)
        guard let appId = credentials.applicationId, appId != configuration.applicationId else {
            return await serve(inProgress, access: access)
        }
        let app: AppRecord?
        do {
            app = try await apps.app(appId, requestId: requestId)
        } catch {
            return ParseResponses.error(CallFailure.parseError(error, write: false, call: "app lookup", logger: log))
        }
        guard let app else { return ParseResponses.unauthorized }
        let response = await ServedApp.serving(app.applicationId) {
            await serve(inProgress, access: AccessCheck(app, configuration))
        }
        GatewayMetrics.count(app: app.applicationId, status: response.status)
        requestCounts?.record(method: request.method, template: route.template, status: response.status, app: app.applicationId)
        return response
    }

    /// A request whose keys are about to be checked, and what was read from it so far.
    private struct RequestInProgress {
        let request: HTTPRequest
        let route: GatewayRoute
        let path: String
        let owner: ServiceName?
        let body: JSONBody
        let credentials: RequestCredentials
        let requestId: String
        let log: Logger
    }

    /// The request checked against `access` (the stack's own app's keys, or another app's) and sent on.
    private func serve(_ inProgress: RequestInProgress, access: AccessCheck) async -> HTTPResponse {
        let (request, route, path, owner, body) = (inProgress.request, inProgress.route, inProgress.path, inProgress.owner,
                                                   inProgress.body)
        let (credentials, requestId, log) = (inProgress.credentials, inProgress.requestId, inProgress.log)
        guard case .allowed(var identity) = access.evaluate(credentials, remoteAddress: request.remoteAddress) else {
            return ParseResponses.unauthorized
        }
        // parse-server ignores the token on exactly `/login`, and a master key wins over a token (which stays in the
        // identity unresolved, for `/users/me` and `/logout`).
        if path == "login" { identity.sessionToken = nil }
        if let token = identity.sessionToken, !identity.isMaster, !identity.isReadOnlyMaster, path != "login" {
            do {
                identity = try await sessions.identity(for: token, requestId: requestId)
            } catch {
                return ParseResponses.error(CallFailure.parseError(error, write: false, call: "session lookup", logger: log))
            }
        }
        // parse-server reads the device's id from the header or the JavaScript SDK's body field.
        identity.installationId = request.headers["X-Parse-Installation-Id"] ?? body.envelope["_InstallationId"]
        if route.destination == .graphQL {
            guard !identity.isMaintenance else { return ParseResponses.masterKeyRequired }
            if rateLimiter.isEnabled, let refused = await rateLimiter.refusal(method: request.method, path: path, identity: identity,
                                                                              remoteAddress: request.remoteAddress) {
                return refused
            }
            return await GraphQLRequestHandler(configuration: configuration, client: client, sessions: sessions,
                                               endpoint: graphQL.endpoint(for: AppContext.current), apps: apps,
                                               logger: log)
                .respond(to: request, identity: identity, requestId: requestId, serverURL: serverURL(for: request))
        }
        guard let service = owner else { return ParseResponses.unknownRoute(request.method, request.path) }
        let method = request.method == "POST" ? (body.envelope["_method"] ?? "POST") : request.method
        if identity.isMaintenance {
            guard let scoped = MaintenanceScope.identity(identity, method: method, path: path) else {
                return ParseResponses.masterKeyRequired
            }
            identity = scoped
        } else if credentials.maintenanceKey != nil, configuration.maintenanceKey != nil {
            log.warning("a maintenance key was not used: wrong, or from an address outside PARSE_SERVER_MAINTENANCE_KEY_IPS",
                        ["ip": request.remoteAddress])
        }
        if let allowList = configuration.routeAllowList, !identity.isMaster, !identity.isReadOnlyMaster,
           !identity.isMaintenance, let refused = allowList.refusal(path: path, method: method, fields: body.fields,
                                                                    mountPath: configuration.mountPath) {
            return ParseResponses.error(refused, status: 403)
        }
        if method == "POST" || method == "PUT", let fields = body.fields {
            do { try configuration.fileURLDomains.check(.object(fields)) } catch { return ParseResponses.error(error) }
        }
        if path == "scriptlog", identity.isMaster || identity.isReadOnlyMaster, let scriptLogs { await scriptLogs.flush() }
        if rateLimiter.isEnabled, let refused = await rateLimiter.refusal(method: method, path: path, identity: identity,
                                                                          remoteAddress: request.remoteAddress) {
            return refused
        }
        if path == "batch", method == "POST",
           let batch = BatchRequest(fields: body.fields, mountPath: configuration.mountPath) {
            let limit = configuration.batchRequestLimit
            if limit > -1, !identity.isMaster, batch.items.count > limit {
                return ParseResponses.error(ParseError(.invalidJSON, "Batch request contains \(batch.items.count) "
                                                       + "sub-requests, which exceeds the limit of \(limit)."))
            }
            if let refused = await rateLimiter.refusal(batch: batch, identity: identity, remoteAddress: request.remoteAddress) {
                return refused
            }
            switch BatchPlan(batch, voteFields: configuration.voteFields, serverURL: serverURL(for: request)) {
            case .forwardWhole:
                break
            case .refuse(let error):
                return ParseResponses.error(error)
            case .split(let steps):
                return await BatchDispatcher(client: client, timeout: configuration.requestTimeout, logger: log)
                    .run(steps, transactional: batch.transactional, requestId: requestId, identity: identity,
                         serverURL: serverURL(for: request), idempotent: idempotent(request, method: method, path: path))
            }
        }
        if let vote = VoteRoute(fields: configuration.voteFields).plan(method: method, path: path, fields: body.fields) {
            return await VoteForwarder(client: client, timeout: configuration.requestTimeout, logger: log)
                .send(vote, requestId: requestId, identity: identity, serverURL: serverURL(for: request))
        }
        if service == .cloud, let call = CloudForwarder.call(method: method, path: path) {
            return await CloudForwarder(client: client, timeout: configuration.requestTimeout, logger: log)
                .send(call, request: request, body: body.fields, requestId: requestId, identity: identity)
        }
        let details: CloudRequestDetails
        do {
            details = try CloudRequestDetails(request, bodyContext: body.context)
        } catch {
            return ParseResponses.error(error)
        }
        let rest = RESTRequest(method: method, path: path,
                               query: Dictionary(request.query.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }),
                               body: body.payload, serverURL: serverURL(for: request),
                               headers: details.headers, ip: request.remoteAddress, context: details.context,
                               idempotent: idempotent(request, method: method, path: path) ? true : nil)
        do {
            // Reads may share a message batch; writes travel alone (a crash re-runs a whole batch).
            let answer: RESTResponse = try await client.send(RESTRequest.type, rest, to: service, requestId: requestId,
                                                             identity: identity, timeout: configuration.requestTimeout,
                                                             safeToRunTwice: method == "GET")
            return ParseResponses.json(answer.status, answer.body, extra: answer.headers.sorted { $0.key < $1.key })
        } catch {
            return ParseResponses.error(CallFailure.parseError(error, write: method != "GET", call: "service call",
                                                               logger: log, ["service": service.rawValue]))
        }
    }

    /// Whether the services apply this write once per request id: only when the client named it.
    private func idempotent(_ request: HTTPRequest, method: String, path: String) -> Bool {
        request.headers["X-Parse-Request-Id"] != nil && configuration.idempotentPaths.covers(method: method, path: path)
    }

    /// The server URL the client used (scheme from `X-Forwarded-Proto`), for `Location` headers and file URLs.
    func serverURL(for request: HTTPRequest) -> String {
        let host = request.headers["Host"] ?? "\(configuration.host):\(configuration.port)"
        let scheme = request.headers["X-Forwarded-Proto"] ?? "http"
        return "\(scheme)://\(host)\(configuration.mountPath == "/" ? "" : configuration.mountPath)"
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
