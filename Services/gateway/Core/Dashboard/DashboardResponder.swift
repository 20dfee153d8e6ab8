import Foundation
import HTTPServer
import ParseWire
import Runtime

/// The built-in dashboard in front of the API. Below its path: the web app's files and its login. Below the
/// API's mount: a request that carries the dashboard's cookie, its CSRF token and our own origin is sent on with
/// the master key added here, so the browser never holds the key; the cookie alone adds nothing.
/// A class, not a struct: the server calls it for every request, and each call copied the whole responder (all the
/// layers inside it) into its frame.
final class DashboardResponder<Inner: HTTPStreamingResponder>: HTTPStreamingResponder {
    static var csrfHeader: String { "X-Parse-Dashboard-Token" }
    /// The app a call from the pages is for, when it is not the stack's own (the app switcher's choice).
    static var appHeader: String { "X-Parse-Dashboard-App" }

    let inner: Inner
    let configuration: DashboardConfiguration
    let assets: DashboardAssets
    let cookies: DashboardSessionCookie
    let applicationId: String
    let masterKey: String
    let readOnlyMasterKey: String?
    let clientKeys: ClientKeys
    let mountPath: String
    /// Where the GraphQL API answers, for the GraphQL console; nil when it is not served.
    let graphQLPath: String?
    let fallbackHost: String
    let imageSources: [String]
    /// The other apps: their keys, and the registry's calls (`DashboardApps`); nil serves the stack's app alone.
    let apps: DashboardAppAccess?

    init(inner: Inner, configuration: DashboardConfiguration, assets: DashboardAssets, cookies: DashboardSessionCookie,
         applicationId: String, masterKey: String, readOnlyMasterKey: String?, clientKeys: ClientKeys, mountPath: String,
         graphQLPath: String? = nil, fallbackHost: String, imageSources: [String], apps: DashboardAppAccess? = nil) {
        self.apps = apps
        self.inner = inner
        self.configuration = configuration
        self.assets = assets
        self.cookies = cookies
        self.applicationId = applicationId
        self.masterKey = masterKey
        self.readOnlyMasterKey = readOnlyMasterKey
        self.clientKeys = clientKeys
        self.mountPath = mountPath
        self.graphQLPath = graphQLPath
        self.fallbackHost = fallbackHost
        self.imageSources = imageSources
    }

    func immediateResponse(to request: HTTPRequest) -> HTTPResponse? {
        if isDashboardPath(request.path) {
            // Static files are answered on the server's thread; the login needs bcrypt, and the apps the registry,
            // off it.
            guard request.method == "GET", !DashboardApps<Inner>.handles(request, responder: self) else { return nil }
            return staticResponse(request)
        }
        return hasDashboardToken(request) ? nil : inner.immediateResponse(to: request)
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        if isDashboardPath(request.path) {
            if DashboardApps<Inner>.handles(request, responder: self) { return await DashboardApps(responder: self).respond(to: request) }
            return await DashboardLogin(responder: self).respond(to: request)
        }
        switch await authorize(request) {
        case .pass: return await inner.respond(to: request)
        case .asAdmin(let request): return await inner.respond(to: request)
        case .refuse(let response): return response
        }
    }

    func streamsBody(of head: HTTPRequest) -> Bool {
        !isDashboardPath(head.path) && inner.streamsBody(of: head)
    }

    func respond(to head: HTTPRequest, body: HTTPBodyStream) async -> HTTPResponse {
        switch await authorize(head) {
        case .pass: return await inner.respond(to: head, body: body)
        case .asAdmin(let head): return await inner.respond(to: head, body: body)
        case .refuse(let response): return response
        }
    }

    func isDashboardPath(_ path: String) -> Bool {
        path == configuration.path || path.hasPrefix(configuration.path + "/")
    }

    func client(_ request: HTTPRequest) -> DashboardClient {
        DashboardClient(request, fallbackHost: fallbackHost)
    }

    func headers(_ client: DashboardClient) -> [(String, String)] {
        DashboardResponses.securityHeaders(for: client, imageSources: imageSources)
    }

    /// parse-dashboard's rule: other machines only over HTTPS, unless insecure HTTP is allowed.
    func insecureRefusal(_ client: DashboardClient) -> HTTPResponse? {
        guard !configuration.allowInsecureHTTP, !client.isLocal, !client.isSecure else { return nil }
        return DashboardResponses.error(403, code: 119, "Parse Dashboard can only be remotely accessed via HTTPS",
                                        headers: headers(client))
    }

    private func staticResponse(_ request: HTTPRequest) -> HTTPResponse {
        let client = client(request)
        if let refusal = insecureRefusal(client) { return refusal }
        if request.path == configuration.path {
            return HTTPResponse(status: 302, headers: HTTPHeaders(headers(client) + [("Location", configuration.path + "/")]))
        }
        let relative = String(request.path.dropFirst(configuration.path.count + 1))
        if relative == "session" { return sessionResponse(request, client: client) }
        if relative == "keys" { return DashboardKeys(responder: self).response(to: request, client: client) }
        guard let asset = assets[relative] else {
            return DashboardResponses.error(404, code: 108, "No such dashboard page.", headers: headers(client))
        }
        return HTTPResponse(status: 200, headers: HTTPHeaders(headers(client) + [("Content-Type", asset.contentType),
                                                                                 ("Cache-Control", "no-cache")]),
                            body: asset.bytes)
    }

    /// `GET <path>/session`: who is logged in, with the CSRF token and what the page needs to call the API;
    /// 401 without a valid login. Same-origin only, so another site's script cannot read the token.
    private func sessionResponse(_ request: HTTPRequest, client: DashboardClient) -> HTTPResponse {
        guard client.sentFromOurPages(request) else {
            return DashboardResponses.error(403, code: 119, "Cross-origin requests are refused.", headers: headers(client))
        }
        guard let cookie = DashboardSessionCookie.value(in: request.headers.values("Cookie")),
              let session = cookies.session(cookie) else {
            let login = configuration.users.isEmpty ? "masterKey" : "users"
            return DashboardResponses.json(401, #"{"code":209,"error":"Not logged in.","login":"\#(login)"}"#,
                                           headers: headers(client))
        }
        return DashboardResponses.json(200, sessionBody(session), headers: headers(client))
    }

    func sessionBody(_ session: DashboardSessionCookie.Session) -> String {
        let fields = [("user", session.user), ("csrfToken", session.csrfToken), ("applicationId", applicationId),
                      ("mountPath", mountPath)]
        let graphQL = graphQLPath.map(DashboardResponses.jsonString) ?? "null"
        return "{" + fields.map { "\(DashboardResponses.jsonString($0.0)):\(DashboardResponses.jsonString($0.1))" }
            .joined(separator: ",") + #","graphQLPath":\#(graphQL),"readOnly":\#(session.readOnly)}"#
    }

    private func hasDashboardToken(_ request: HTTPRequest) -> Bool {
        request.headers.contains(Self.csrfHeader)
    }

    enum Decision {
        case pass
        case asAdmin(HTTPRequest)
        case refuse(HTTPResponse)
    }

    /// An API request with the dashboard's token header: allowed with the master key when its cookie, token and
    /// origin all hold, refused otherwise. Without the header it is an ordinary client's request.
    /// A call for another app (`appHeader`) gets that app's id and master key; a read-only login has no key to act
    /// with there.
    func authorize(_ request: HTTPRequest) async -> Decision {
        guard hasDashboardToken(request) else { return .pass }
        let refusal = ParseErrorBody.json(ParseError(.operationForbidden, "The dashboard session was refused."))
        let refused = Decision.refuse(ParseResponses.json(403, refusal))
        guard let session = loggedInSession(request) else { return refused }
        var request = request
        request.headers.remove(Self.csrfHeader)
        if let chosen = request.headers[Self.appHeader], chosen != applicationId {
            request.headers.remove(Self.appHeader)
            guard !session.readOnly, let app = try? await apps?.directory.app(chosen, requestId: TimeOrderedUUID.string()) else {
                return refused
            }
            request.headers.set("X-Parse-Application-Id", app.applicationId)
            request.headers.set("X-Parse-Master-Key", app.masterKey)
            return .asAdmin(request)
        }
        request.headers.remove(Self.appHeader)
        request.headers.set("X-Parse-Application-Id", applicationId)
        if session.readOnly {
            guard let readOnlyMasterKey else { return refused }
            request.headers.set("X-Parse-Master-Key", readOnlyMasterKey)
        } else {
            request.headers.set("X-Parse-Master-Key", masterKey)
        }
        return .asAdmin(request)
    }

    /// The login a request from the dashboard's pages acts for: its cookie, its CSRF token and its origin all hold.
    func loggedInSession(_ request: HTTPRequest) -> DashboardSessionCookie.Session? {
        let client = client(request)
        guard insecureRefusal(client) == nil, client.sentFromOurPages(request),
              let cookie = DashboardSessionCookie.value(in: request.headers.values("Cookie")),
              let session = cookies.session(cookie),
              let sent = request.headers[Self.csrfHeader], ConstantTime.equals(sent, session.csrfToken) else {
            return nil
        }
        return session
    }
}
