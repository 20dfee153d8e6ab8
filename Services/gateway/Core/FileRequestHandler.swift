import Contracts
import Foundation
import HTTPServer
import Messaging
import ParseWire
import Runtime

/// The `files/...` routes. They bypass the JSON body parsing of other routes: uploads are raw bytes, and
/// downloads need no keys at all (an `<img>` tag fetches them), as in parse-server. Bytes go to and from the
/// files service in parts of `FileCommands.partBytes`.
struct FileRequestHandler {
    let configuration: GatewayConfiguration
    let client: RPCClient
    let sessions: any SessionResolver
    let logger: Logger
    /// `PARSE_PUBLIC_SERVER_URL` (parse-server's `publicServerURL`): the base of file URLs, else the request's host.
    let publicServerURL: String?
    /// The apps besides the stack's own; without it, only the stack's own app's files are served.
    let apps: AppDirectory?

    init(configuration: GatewayConfiguration, client: RPCClient, sessions: any SessionResolver, logger: Logger,
         publicServerURL: String? = nil, apps: AppDirectory? = nil) {
        self.apps = apps
        self.configuration = configuration
        self.client = client
        self.sessions = sessions
        self.logger = logger
        self.publicServerURL = publicServerURL ?? configuration.publicServerURL
    }

    func respond(to request: HTTPRequest, path: String, requestId: String, serverURL: String) async -> HTTPResponse {
        let log = logger.with("request.id", requestId)
        let calls = FileServiceCalls(client: client, requestId: requestId, timeout: configuration.requestTimeout)
        do {
            switch FileRoute(method: request.method, path: path) {
            case .uploadWithoutName:
                return FileResponses.filenameNotProvided
            case .upload(let name):
                return try await upload(request, name: name, calls: calls, serverURL: serverURL, log: log)
            case .download(let appId, let name):
                guard let app = try await app(appId, requestId: requestId) else { return FileResponses.invalidApplicationId }
                return try await ServedApp.serving(app.other) {
                    try await FileDownload(calls: calls).respond(to: request, name: name)
                }
            case .metadata(let appId, let name):
                guard let app = try await app(appId, requestId: requestId) else { return ParseResponses.json(200, "{}") }
                return try await ServedApp.serving(app.other) { try await metadata(name, calls: calls) }
            case .delete(let name):
                return try await delete(request, name: name, calls: calls)
            case .unknown:
                return ParseResponses.unknownRoute(request.method, request.path)
            }
        } catch {
            return failure(error, log: log)
        }
    }

    private func failure(_ error: any Error, log: Logger) -> HTTPResponse {
        switch error {
        case let refusal as FileResponses.ReadOnlyRefusal:
            return refusal.response
        case HTTPBodyStream.Failure.tooLarge:
            return ParseResponses.payloadTooLarge
        case HTTPBodyStream.Failure.incomplete:
            log.info("upload cut short by the client")
            return ParseResponses.badRequest
        default:
            return ParseResponses.error(CallFailure.parseError(error, write: false, call: "files service call", logger: log))
        }
    }

    private func upload(_ request: HTTPRequest, name: String, calls: FileServiceCalls, serverURL: String,
                        log: Logger) async throws -> HTTPResponse {
        // Another app's raw upload names it in the header; the JavaScript SDK's form names it in the body.
        var known: FileApp?
        if let header = request.headers["X-Parse-Application-Id"], header != configuration.applicationId {
            known = try await app(header, requestId: calls.requestId)
        }
        guard let body = FileUploadBody(request, applicationId: known?.id ?? configuration.applicationId) else {
            return ParseResponses.unauthorized
        }
        if known == nil, let named = body.envelope["_ApplicationId"], named != configuration.applicationId {
            known = try await app(named, requestId: calls.requestId)
        }
        let app = known ?? .stack(configuration.applicationId)
        return try await ServedApp.serving(app.other) {
            guard let identity = try await identity(request, bodyFields: body.envelope, access: access(app),
                                                    requestId: calls.requestId, for: .create) else {
                return ParseResponses.unauthorized
            }
            var source = BufferedUploadSource(body.bytes)
            let description = FileUpload.Description(name: name, contentType: body.contentType, metadata: body.metadata,
                                                     tags: body.tags)
            let state = try await FileUpload(calls: calls, identity: identity, log: log).send(&source, description)
            return created(state, appId: app.id, serverURL: serverURL)
        }
    }

    /// The app a file request names: the stack's own, another one the registry knows, or (nil) none.
    enum FileApp {
        case stack(String)
        case other(AppRecord)

        var id: String {
            switch self {
            case .stack(let id): id
            case .other(let app): app.applicationId
            }
        }

        /// The app the request's commands carry (`AppContext`): nil for the stack's own.
        var other: String? {
            if case .other(let app) = self { return app.applicationId }
            return nil
        }
    }

    private func app(_ id: String, requestId: String) async throws -> FileApp? {
        if id == configuration.applicationId { return .stack(id) }
        return try await apps?.app(id, requestId: requestId).map(FileApp.other)
    }

    private func access(_ app: FileApp) -> AccessCheck {
        switch app {
        case .stack: AccessCheck(configuration)
        case .other(let record): AccessCheck(record, configuration)
        }
    }

    /// An upload whose body is still arriving: the keys are checked from the head before any byte is read.
    /// Only the JavaScript SDK's JSON form (keys inside the body) has to be read whole first.
    func respondStreamed(to head: HTTPRequest, body stream: HTTPBodyStream, path: String, requestId: String,
                         serverURL: String) async -> HTTPResponse {
        let log = logger.with("request.id", requestId)
        let calls = FileServiceCalls(client: client, requestId: requestId, timeout: configuration.requestTimeout)
        guard case .upload(let name) = FileRoute(method: head.method, path: path) else {
            return ParseResponses.unknownRoute(head.method, head.path)
        }
        do {
            if head.headers["X-Parse-Application-Id"] != configuration.applicationId {
                var whole = head
                whole.body = try await stream.collect()
                return try await upload(whole, name: name, calls: calls, serverURL: serverURL, log: log)
            }
            guard let identity = try await identity(head, bodyFields: [:], access: AccessCheck(configuration),
                                                    requestId: requestId, for: .create) else {
                return ParseResponses.unauthorized
            }
            var source = StreamedUploadSource(stream)
            let description = FileUpload.Description(name: name, contentType: head.headers["Content-Type"])
            let state = try await FileUpload(calls: calls, identity: identity, log: log).send(&source, description)
            return created(state, appId: configuration.applicationId, serverURL: serverURL)
        } catch {
            return failure(error, log: log)
        }
    }

    private func created(_ state: FileUploadState, appId: String, serverURL: String) -> HTTPResponse {
        let base = publicServerURL ?? serverURL
        let url = "\(base)/files/\(appId)/\(FileResponses.encodeURIComponent(state.name))"
        return FileResponses.created(url: url, name: state.name)
    }

    private func metadata(_ name: String, calls: FileServiceCalls) async throws -> HTTPResponse {
        do {
            let answer: FileMetadata = try await calls.send(FileCommands.metadata, FileNameReference(name: name),
                                                           identity: .anonymous)
            return ParseResponses.json(200, Array((try? JSONEncoder.sorted.encode(answer)) ?? Data("{}".utf8)))
        } catch is ParseError {
            return ParseResponses.json(200, "{}")
        }
    }

    private func delete(_ request: HTTPRequest, name: String, calls: FileServiceCalls) async throws -> HTTPResponse {
        let envelope = (try? JSONBody(request.body))?.envelope ?? [:]
        let named = request.headers["X-Parse-Application-Id"] ?? envelope["_ApplicationId"] ?? configuration.applicationId
        guard let app = try await app(named, requestId: calls.requestId) else { return ParseResponses.unauthorized }
        return try await ServedApp.serving(app.other) {
            guard let identity = try await identity(request, bodyFields: envelope, access: access(app),
                                                    requestId: calls.requestId, for: .delete) else {
                return ParseResponses.unauthorized
            }
            guard identity.isMaster, !identity.isMaintenance else { return FileResponses.masterKeyRequired }
            let _: Empty = try await calls.send(FileCommands.delete, FileNameReference(name: name), identity: identity)
            return FileResponses.deleted
        }
    }

    /// The caller of a file write (`operation`) as parse-server's `handleParseHeaders` sees it; nil for a 403.
    /// The read-only master key writes nothing, files included (`FileResponses.readOnlyRefusal`).
    private func identity(_ request: HTTPRequest, bodyFields: [String: String], access: AccessCheck, requestId: String,
                          for operation: FileResponses.Write) async throws -> Identity? {
        let credentials = RequestCredentials(headers: request.headers, bodyFields: bodyFields)
        guard case .allowed(let identity) = access.evaluate(credentials, remoteAddress: request.remoteAddress) else {
            return nil
        }
        if identity.isReadOnlyMaster { throw FileResponses.ReadOnlyRefusal(operation: operation) }
        if let token = identity.sessionToken, !identity.isMaster {
            return try await sessions.identity(for: token, requestId: requestId)
        }
        return identity
    }
}
