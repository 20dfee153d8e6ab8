import Foundation
import HTTPServer

/// `POST <path>/login` (`{"masterKey"}`, or `{"username","password"}` when a user list is configured) and
/// `POST <path>/logout`. Both must come from the dashboard's own pages (origin check); the logout also needs the
/// CSRF token. A login answers what `GET <path>/session` does and sets the session cookie: HttpOnly, so no
/// script reads it, SameSite=Strict, so no other site's page sends it, Secure behind HTTPS.
struct DashboardLogin<Inner: HTTPStreamingResponder> {
    let responder: DashboardResponder<Inner>

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let client = responder.client(request)
        let headers = responder.headers(client)
        if let refusal = responder.insecureRefusal(client) { return refusal }
        let action = String(request.path.dropFirst(responder.configuration.path.count + 1))
        guard request.method == "POST", action == "login" || action == "logout" else {
            return DashboardResponses.error(404, code: 108, "No such dashboard page.", headers: headers)
        }
        // A login form posted from another site would log the victim into the attacker's account: origins must match.
        guard request.headers["Origin"] != nil, client.sentFromOurPages(request) else {
            return DashboardResponses.error(403, code: 119, "Cross-origin requests are refused.", headers: headers)
        }
        return action == "login" ? await logIn(request, client: client, headers: headers) : logOut(request, client: client, headers: headers)
    }

    private func logIn(_ request: HTTPRequest, client: DashboardClient, headers: [(String, String)]) async -> HTTPResponse {
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
            return DashboardResponses.error(400, code: 107, "Invalid JSON", headers: headers)
        }
        let users = responder.configuration.users
        let user: String, readOnly: Bool
        if users.isEmpty {
            guard let key = object["masterKey"] as? String, ConstantTime.equals(key, responder.masterKey) else {
                return DashboardResponses.error(401, code: 101, "Invalid master key.", headers: headers)
            }
            user = "master"
            readOnly = false
        } else {
            guard let name = object["username"] as? String, let password = object["password"] as? String,
                  let entry = await users.authenticate(user: name, password: password) else {
                return DashboardResponses.error(401, code: 101, "Invalid username/password.", headers: headers)
            }
            user = entry.user
            readOnly = entry.readOnly ?? false
            if readOnly && responder.readOnlyMasterKey == nil {
                return DashboardResponses.error(403, code: 119,
                                                "Read-only users need PARSE_SERVER_READ_ONLY_MASTER_KEY.", headers: headers)
            }
        }
        let cookie = responder.cookies.issue(user: user, readOnly: readOnly)
        guard let session = responder.cookies.session(cookie) else {
            return DashboardResponses.error(500, code: 1, "Internal server error.", headers: headers)
        }
        let attributes = "Path=/; Max-Age=\(responder.configuration.sessionLength); HttpOnly; SameSite=Strict"
            + (client.isSecure ? "; Secure" : "")
        return DashboardResponses.json(200, responder.sessionBody(session), headers: headers,
                                       extra: [("Set-Cookie", "\(DashboardSessionCookie.name)=\(cookie); \(attributes)")])
    }

    private func logOut(_ request: HTTPRequest, client: DashboardClient, headers: [(String, String)]) -> HTTPResponse {
        guard let cookie = DashboardSessionCookie.value(in: request.headers.values("Cookie")),
              let session = responder.cookies.session(cookie),
              let sent = request.headers[DashboardResponder<Inner>.csrfHeader],
              ConstantTime.equals(sent, session.csrfToken) else {
            return DashboardResponses.error(403, code: 119, "The dashboard session was refused.", headers: headers)
        }
        responder.cookies.logOut(cookie)
        return DashboardResponses.json(200, "{}", headers: headers, extra: [
            ("Set-Cookie", "\(DashboardSessionCookie.name)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"),
        ])
    }
}
