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
/// - `POST /admin/apps/<name>/keys`: new keys for the app (the old ones stop working); 200 and the app with them;
/// - `PUT /admin/apps/<name>` with `{"name": ...}`: the app's new name; 200 and the app;
/// - `PUT /admin/apps/<name>/push` with `{"endpoints": "ios=https://...,*=https://..."}`: where the push adapter
///   sends the app's notifications (`""` for nowhere); 200 and the app;
/// - `DELETE /admin/apps/<name>?confirm=<name>`: the app leaves the registry, then every service drops its data;
///   200 and the app as it was.
struct AppsAdmin {
    static let path = "/admin/apps"
    static let keyHeader = "X-Parse-Admin-Key"

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
        let registry = AppRegistryCalls(client: client, timeout: configuration.requestTimeout, requestId: requestId)
        let segments = rest.split(separator: "/", omittingEmptySubsequences: false).map { String($0).removingPercentEncoding ?? String($0) }
        do {
            switch (request.method, segments.count) {
            case ("GET", _) where rest.isEmpty:
                return try Self.json(200, ["results": try await registry.list().apps])
            case ("POST", _) where rest.isEmpty:
                let app = try await registry.create(try Self.decode(CreateApp.self, request.body))
                logger.info("app created", ["app": app.applicationId, "name": app.name])
                return try Self.json(201, app)
            case ("POST", 2) where segments[1] == "keys":
                let app = try await registry.rotateKeys(try await registry.named(segments[0]).applicationId)
                logger.info("app keys rotated", ["app": app.applicationId, "name": app.name])
                return try Self.json(200, app)
            case ("PUT", 1):
                let renamed = try Self.decode(NewName.self, request.body).name
                let app = try await registry.rename(try await registry.named(segments[0]).applicationId, to: renamed)
                logger.info("app renamed", ["app": app.applicationId, "name": app.name])
                return try Self.json(200, app)
            case ("PUT", 2) where segments[1] == "push":
                let endpoints = try Self.decode(PushSetting.self, request.body, field: "endpoints").endpoints
                let app = try await registry.setPushEndpoints(try await registry.named(segments[0]).applicationId, endpoints)
                logger.info("app push endpoints set", ["app": app.applicationId, "name": app.name])
                return try Self.json(200, app)
            case ("DELETE", 1):
                let name = segments[0]
                guard request.query.first(where: { $0.name == "confirm" })?.value == name else {
                    throw ParseError(.invalidJSON, "Deleting an app removes all its data: confirm it with ?confirm=<its name>.")
                }
                let app = try await registry.delete(named: name)
                logger.info("app deleted", ["app": app.applicationId, "name": app.name])
                return try Self.json(200, app)
            default:
                return ParseResponses.unknownRoute(request.method, request.path)
            }
        } catch {
            return ParseResponses.error(CallFailure.parseError(error, write: request.method != "GET", call: "app registry",
                                                               logger: logger))
        }
    }

    /// A rename's body.
    private struct NewName: Decodable {
        let name: String
    }

    /// A push setting's body.
    private struct PushSetting: Decodable {
        let endpoints: String
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, _ body: [UInt8], field: String = "name") throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch {
            throw ParseError(.invalidJSON, "The body must be a JSON object with a \"\(field)\" string.")
        }
    }

    private static func json(_ status: Int, _ value: some Encodable) throws -> HTTPResponse {
        ParseResponses.json(status, Array(try JSONEncoder.sorted.encode(value)))
    }
}
