import Foundation
import HTTPServer

/// `GET <path>/keys`, for Settings: the app's name, its application id and the keys a client needs. The master key
/// only with `?masterKey=1`, and only to a login that acts with it (not a read-only user, 403). Like every call the
/// page makes, it needs the login's cookie, its CSRF token and the dashboard's own origin, so no other site's script
/// can read the keys.
struct DashboardKeys<Inner: HTTPStreamingResponder> {
    let responder: DashboardResponder<Inner>

    func response(to request: HTTPRequest, client: DashboardClient) -> HTTPResponse {
        let headers = responder.headers(client)
        guard let session = responder.loggedInSession(request) else {
            return DashboardResponses.error(403, code: 119, "The dashboard session was refused.", headers: headers)
        }
        let keys = responder.clientKeys
        var fields: [(String, String?)] = [
            ("appName", responder.configuration.appName), ("applicationId", responder.applicationId),
            ("clientKey", keys.clientKey), ("javascriptKey", keys.javascriptKey), ("restAPIKey", keys.restAPIKey),
            ("dotNetKey", keys.dotNetKey),
        ]
        if request.queryValue("masterKey") == "1" {
            guard !session.readOnly else {
                return DashboardResponses.error(403, code: 119, "A read-only user cannot see the master key.", headers: headers)
            }
            fields.append(("masterKey", responder.masterKey))
        }
        return DashboardResponses.json(200, Self.body(fields, canSeeMasterKey: !session.readOnly), headers: headers)
    }

    /// The keys as the Settings page reads them, for the stack's app and the others alike (`DashboardApps`).
    static func body(_ fields: [(String, String?)], canSeeMasterKey: Bool, canRotate: Bool = false) -> String {
        let body = fields.map { name, value in
            "\(DashboardResponses.jsonString(name)):\(value.map(DashboardResponses.jsonString) ?? "null")"
        }
        return "{" + body.joined(separator: ",") + #","canSeeMasterKey":\#(canSeeMasterKey),"canRotate":\#(canRotate)}"#
    }
}
