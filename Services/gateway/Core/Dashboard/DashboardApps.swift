import Contracts
import Foundation
import HTTPServer
import Messaging
import ParseWire
import Runtime

/// What the dashboard needs to serve the apps besides the stack's own: the gateway's copy of their keys, and the
/// registry's calls.
struct DashboardAppAccess: Sendable {
    let directory: AppDirectory
    let client: RPCClient
    let timeout: Duration

    func registry() -> AppRegistryCalls {
        AppRegistryCalls(client: client, timeout: timeout, requestId: TimeOrderedUUID.string())
    }
}

/// The app switcher's routes, each with the login's cookie, CSRF token and origin, as every call the page makes:
/// - `GET <path>/apps`: every app (`{"results":[{"name","applicationId","isStackApp"}]}`), the stack's own first;
/// - `POST <path>/apps` with `{"name"}`: "Create a new app"; 201 and its keys as `keys` answers them;
/// - `GET <path>/keys?app=<id>` (`&masterKey=1`): another app's keys, as `DashboardKeys` answers the stack app's;
/// - `POST <path>/apps/<id>/keys`: new keys for that app, the old ones refused from the answer on;
/// - `POST <path>/apps/<id>/name` with `{"name"}`: the app's new name; its keys as `keys` answers them;
/// - `POST <path>/apps/<id>/delete` with `{"confirm"}` naming the app: the app and all its data go; `{}`.
/// Creating, renaming, rotating, deleting and another app's master key are refused to a read-only login.
struct DashboardApps<Inner: HTTPStreamingResponder> {
    let responder: DashboardResponder<Inner>

    static func handles(_ request: HTTPRequest, responder: DashboardResponder<Inner>) -> Bool {
        guard responder.apps != nil else { return false }
        let relative = String(request.path.dropFirst(responder.configuration.path.count + 1))
        if relative == "apps" || relative.hasPrefix("apps/") { return true }
        return relative == "keys" && request.queryValue("app").map { !$0.isEmpty && $0 != responder.applicationId } == true
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let client = responder.client(request)
        let headers = responder.headers(client)
        guard let access = responder.apps, let session = responder.loggedInSession(request) else {
            return DashboardResponses.error(403, code: 119, "The dashboard session was refused.", headers: headers)
        }
        let relative = String(request.path.dropFirst(responder.configuration.path.count + 1))
        let segments = relative.split(separator: "/").map(String.init)
        let registry = access.registry()
        do {
            switch (request.method, segments.count) {
            case ("GET", 1) where segments[0] == "apps":
                let list = try await registry.list()
                return DashboardResponses.json(200, String(decoding: try JSONEncoder.sorted.encode(["results": list.apps]), as: UTF8.self),
                                               headers: headers)
            case ("GET", 1) where segments[0] == "keys":
                let app = try await registry.resolve(request.queryValue("app") ?? "")
                if request.queryValue("masterKey") == "1", session.readOnly {
                    return DashboardResponses.error(403, code: 119, "A read-only user cannot see the master key.", headers: headers)
                }
                return keys(app, withMasterKey: request.queryValue("masterKey") == "1", session: session, headers: headers)
            case ("POST", 1) where segments[0] == "apps":
                guard !session.readOnly else { return Self.readOnlyRefusal(headers) }
                guard let name = Self.name(in: request) else { return Self.nameMissing(headers) }
                let app = try await registry.create(CreateApp(name: name))
                return keys(app, withMasterKey: false, session: session, headers: headers, status: 201)
            case ("POST", 3) where segments[0] == "apps" && segments[2] == "name":
                guard !session.readOnly else { return Self.readOnlyRefusal(headers) }
                guard let name = Self.name(in: request) else { return Self.nameMissing(headers) }
                let app = try await registry.rename(segments[1], to: name)
                return keys(app, withMasterKey: false, session: session, headers: headers)
            case ("POST", 3) where segments[0] == "apps" && segments[2] == "keys":
                guard !session.readOnly else { return Self.readOnlyRefusal(headers) }
                let app = try await registry.rotateKeys(segments[1])
                return keys(app, withMasterKey: false, session: session, headers: headers)
            case ("POST", 3) where segments[0] == "apps" && segments[2] == "delete":
                guard !session.readOnly else { return Self.readOnlyRefusal(headers) }
                let app = try await registry.resolve(segments[1])
                let confirm = (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["confirm"] as? String
                guard confirm == app.name else {
                    return DashboardResponses.error(400, code: 107, "Type the app's name to delete it with all its data.", headers: headers)
                }
                _ = try await registry.delete(named: app.name)
                return DashboardResponses.json(200, "{}", headers: headers)
            default:
                return DashboardResponses.error(404, code: 108, "No such dashboard page.", headers: headers)
            }
        } catch let error as ParseError {
            return DashboardResponses.error(error.httpStatus, code: error.code.rawValue, error.message, headers: headers)
        } catch {
            return DashboardResponses.error(503, code: 100, "The app registry did not answer. Retry later.", headers: headers)
        }
    }

    private func keys(_ app: AppRecord, withMasterKey: Bool, session: DashboardSessionCookie.Session,
                      headers: [(String, String)], status: Int = 200) -> HTTPResponse {
        var fields: [(String, String?)] = [
            ("appName", app.name), ("applicationId", app.applicationId), ("clientKey", app.clientKey),
            ("javascriptKey", app.javascriptKey), ("restAPIKey", app.restApiKey), ("dotNetKey", app.dotNetKey),
        ]
        if withMasterKey { fields.append(("masterKey", app.masterKey)) }
        return DashboardResponses.json(status, DashboardKeys<Inner>.body(fields, canSeeMasterKey: !session.readOnly,
                                                                         canRotate: !session.readOnly),
                                       headers: headers)
    }

    /// The `name` of a JSON body.
    private static func name(in request: HTTPRequest) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["name"] as? String
    }

    private static func nameMissing(_ headers: [(String, String)]) -> HTTPResponse {
        DashboardResponses.error(400, code: 107, "An app needs a name.", headers: headers)
    }

    private static func readOnlyRefusal(_ headers: [(String, String)]) -> HTTPResponse {
        DashboardResponses.error(403, code: 119, "A read-only user cannot change apps.", headers: headers)
    }
}
