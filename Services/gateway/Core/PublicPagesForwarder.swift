import Contracts
import Foundation
import HTTPServer
import Messaging
import ParseWire
import Runtime

/// parse-server's public pages under `<mount>/apps/` (the links in verification and password reset mails, their
/// forms and result pages): no keys, as a browser follows them; form bodies are passed on as they came; the
/// auth service answers with the page or the redirect, which go back with its own headers.
struct PublicPagesForwarder {
    let client: RPCClient
    let timeout: Duration
    let logger: Logger

    /// The app a page is for: the id in `apps/<id>/<page>`, or the `id` (`appId` for the pages router) of
    /// `apps/choose_password`.
    static func applicationId(path: String, query: [QueryItem]) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        if segments.count == 3 { return String(segments[1]) }
        guard segments.count == 2, segments[1] == "choose_password" else { return nil }
        return query.first { $0.name == "id" }?.value ?? query.first { $0.name == "appId" }?.value
    }

    func respond(to request: HTTPRequest, path: String, requestId: String, serverURL: String) async -> HTTPResponse {
        let body = request.body.isEmpty ? nil : String(decoding: request.body, as: UTF8.self)
        // The pages router reads a script's `X-Requested-With` and the `X-Parse-Page-Param-*` headers (the locale).
        var headers: [String: String] = [:]
        for (name, value) in request.headers {
            let lower = name.lowercased()
            if lower == "x-requested-with" || lower.hasPrefix("x-parse-page-param-") { headers[lower] = value }
        }
        let rest = RESTRequest(method: request.method, path: path,
                               query: Dictionary(request.query.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }),
                               body: body, serverURL: serverURL, headers: headers)
        do {
            let answer: RESTResponse = try await client.send(RESTRequest.type, rest, to: .auth, requestId: requestId,
                                                             identity: .anonymous, timeout: timeout,
                                                             safeToRunTwice: request.method == "GET")
            let headers = answer.headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            let type = answer.headers["Content-Type"] == nil ? [("Content-Type", "application/json; charset=utf-8")] : []
            return HTTPResponse(status: answer.status, headers: HTTPHeaders(ParseResponses.corsHeaders + type + headers),
                                body: Array(answer.body.utf8))
        } catch {
            return ParseResponses.error(CallFailure.parseError(error, write: false, call: "public page call", logger: logger))
        }
    }
}
