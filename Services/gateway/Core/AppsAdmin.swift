import Contracts
import Foundation
import HTTPServer
import Messaging
import ParseWire
import Runtime

/// The app registry's API, for scripts (`deploy/stack app`) and the dashboard, with the admin key
/// (`X-Parse-Admin-Key`, `PARSE_SERVER_ADMIN_KEY`):
/// - `GET /admin/apps`: `{"results": [...]}`, the stack's own app first (`AppSummary`);
/// - `POST /admin/apps` with `{"name": ..., "applicationId": ...}` (the id optional): 201 and the new app with its
///   keys (`AppRecord`);
/// - `DELETE /admin/apps/<name>?confirm=<name>`: the app leaves the registry, then every service drops its data;
///   200 and the app as it was.
struct AppsAdmin {
    static let path = "/admin/apps"
    static let keyHeader = "X-Parse-Admin-Key"
    /// The services that keep an app's data, each in a database of its own.
    static let dataOwners: [ServiceName] = [.auth, .posts, .votes, .files, .cloud]

    let configuration: GatewayConfiguration
    let client: RPCClient
    let logger: Logger

    /// The path below `path` ("" for `path` itself), or nil for a path outside it.
    static func rest(of path: String) -> String? {
        guard path.hasPrefix(Self.path) else { return nil }
        let rest = path.dropFirst(Self.path.count)
        if rest.isEmpty || rest == "/" { return "" }
        guard rest.first == "/" else { return nil }
        return String(rest.dropFirst())
    }

    func respond(to request: HTTPRequest, rest: String, requestId: String) async -> HTTPResponse {
        guard let key = configuration.adminKey, let sent = request.headers[Self.keyHeader], ConstantTime.equals(key, sent) else {
            return ParseResponses.unauthorized
        }
        do {
            switch (request.method, rest.isEmpty) {
            case ("GET", true):
                let list: AppList = try await call(ListApps.type, Empty(), requestId: requestId)
                return try Self.json(200, ["results": list.apps])
            case ("POST", true):
                let create = try Self.decode(CreateApp.self, request.body)
                let app: AppRecord = try await call(CreateApp.type, create, requestId: requestId)
                logger.info("app created", ["app": app.applicationId, "name": app.name])
                return try Self.json(201, app)
            case ("DELETE", false):
                let name = rest.removingPercentEncoding ?? rest
                guard request.query.first(where: { $0.name == "confirm" })?.value == name else {
                    throw ParseError(.invalidJSON, "Deleting an app removes all its data: confirm it with ?confirm=<its name>.")
                }
                let app: AppRecord = try await call(DeleteApp.type, DeleteApp(name: name), requestId: requestId)
                logger.info("app deleted", ["app": app.applicationId, "name": app.name])
                for service in Self.dataOwners {
                    let _: Empty = try await client.send(DropAppData.type, DropAppData(applicationId: app.applicationId),
                                                         to: service, requestId: requestId, identity: .master,
                                                         timeout: configuration.requestTimeout, safeToRunTwice: false)
                }
                return try Self.json(200, app)
            default:
                return ParseResponses.unknownRoute(request.method, request.path)
            }
        } catch {
            return ParseResponses.error(CallFailure.parseError(error, write: request.method != "GET", call: "app registry",
                                                               logger: logger))
        }
    }

    /// The registry's commands are the stack's own app's, as master.
    private func call<Payload: Codable & Sendable, Result: Codable & Sendable>(
        _ type: String, _ payload: Payload, requestId: String) async throws -> Result {
        try await client.send(type, payload, to: .auth, requestId: requestId, identity: .master,
                              timeout: configuration.requestTimeout + AppLease.duration, safeToRunTwice: false)
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, _ body: [UInt8]) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch {
            throw ParseError(.invalidJSON, "The body must be a JSON object with a \"name\" string.")
        }
    }

    private static func json(_ status: Int, _ value: some Encodable) throws -> HTTPResponse {
        ParseResponses.json(status, Array(try JSONEncoder.sorted.encode(value)))
    }
}
