import Contracts
import Foundation
import HTTPServer
import Messaging
import ParseGraphQL
import ParseWire
import Runtime
import Synchronization

/// The GraphQL API's way to the data: each call goes where the same REST request would (`BatchPlan.step`: a vote to
/// votes, anything else to its route's owner) with the identity the GraphQL request's keys and session gave; files
/// and the reset page go through the same handlers as their HTTP requests, with the request's own headers.
struct GatewayGraphQLBackend: ParseGraphQLBackend {
    let configuration: GatewayConfiguration
    let client: RPCClient
    let sessions: any SessionResolver
    let apps: AppDirectory
    let logger: Logger
    let identity: Identity
    /// The GraphQL request: its headers and address go with Cloud Code calls and uploads.
    let request: HTTPRequest
    let requestId: String
    let serverURL: String
    let calls: CallNumbers

    /// Numbers each call of one GraphQL request, for the request ids the services log (`<request id>.<n>`), and
    /// bounds them: fields nested in lists (a relation of each found object, and theirs) multiply the calls, and
    /// one document must not turn into a flood (`PARSE_GRAPHQL_MAX_CALLS`).
    final class CallNumbers: Sendable {
        private let next = Atomic<Int>(0)
        let limit: Int

        init(limit: Int) {
            self.limit = limit
        }

        func take() throws(ParseError) -> Int {
            let number = next.add(1, ordering: .relaxed).newValue
            guard number <= limit else {
                throw ParseError(.requestLimitExceeded, "This GraphQL request needs more than \(limit) calls; ask for fewer objects or fields.")
            }
            return number
        }
    }

    var sessionToken: String? { identity.sessionToken }

    private func callId() throws(ParseError) -> String { "\(requestId).\(try calls.take())" }

    func rest(_ method: String, _ path: String, query: [String: String], body: JSONValue?) async throws -> JSONValue {
        // What the gateway checks of a REST request before it goes, each call checked the same way.
        if let allowList = configuration.routeAllowList, !identity.isMaster, !identity.isReadOnlyMaster, !identity.isMaintenance,
           let refused = allowList.refusal(path: path, method: method, fields: body?.objectValue, mountPath: configuration.mountPath) {
            throw refused
        }
        if method == "POST" || method == "PUT", let body { try configuration.fileURLDomains.check(body) }
        let step = BatchPlan.step(method: method, path: path, route: path, query: query, body: body?.compactText,
                                  voteFields: configuration.voteFields, serverURL: serverURL)
        let answer: RESTResponse
        do {
            answer = try await BatchDispatcher(client: client, timeout: configuration.requestTimeout, logger: logger)
                .answer(to: step, requestId: try callId(), identity: identity, serverURL: serverURL)
        } catch {
            throw CallFailure.parseError(error, write: method != "GET", call: "graphql call", logger: logger, ["path": path])
        }
        return try Self.body(status: answer.status, answer.body)
    }

    func runFunction(_ name: String, params: JSONValue) async throws -> JSONValue {
        let run = RunCloudFunction(name: name, params: params, headers: CloudForwarder.headers(request), ip: request.remoteAddress)
        do {
            let answer: CloudFunctionResult = try await client.send(RunCloudFunction.type, run, to: .cloud, requestId: try callId(),
                                                                    identity: identity, timeout: configuration.requestTimeout,
                                                                    safeToRunTwice: false)
            return answer.result
        } catch {
            throw CallFailure.parseError(error, write: true, call: "graphql function call", logger: logger, ["function": name])
        }
    }

    func uploadFile(name: String, contentType: String?, bytes: [UInt8]) async throws -> JSONValue {
        var headers = HTTPHeaders(request.headers.filter { !["content-type", "content-length"].contains($0.0.lowercased()) })
        if let contentType { headers.set("Content-Type", contentType) }
        let upload = HTTPRequest(method: "POST", path: "\(configuration.mountPath)/files/\(name)", headers: headers, body: bytes,
                                 remoteAddress: request.remoteAddress)
        let response = await FileRequestHandler(configuration: configuration, client: client, sessions: sessions, logger: logger,
                                                apps: apps)
            .respond(to: upload, path: "files/\(name)", requestId: try callId(), serverURL: serverURL)
        return try Self.body(status: response.status, String(decoding: response.body, as: UTF8.self))
    }

    func resetPassword(username: String, token: String, password: String) async throws {
        let form = [("username", username), ("token", token), ("new_password", password)]
            .map { "\($0.0)=\(Self.formEncoded($0.1))" }.joined(separator: "&")
        let path = "apps/\(AppContext.current ?? configuration.applicationId)/request_password_reset"
        let page = HTTPRequest(method: "POST", path: "\(configuration.mountPath)/\(path)",
                               headers: ["Content-Type": "application/x-www-form-urlencoded", "X-Requested-With": "XMLHttpRequest"],
                               body: Array(form.utf8), remoteAddress: request.remoteAddress)
        let response = await PublicPagesForwarder(client: client, timeout: configuration.requestTimeout, logger: logger)
            .respond(to: page, path: path, requestId: try callId(), serverURL: serverURL)
        _ = try Self.body(status: response.status, String(decoding: response.body, as: UTF8.self))
    }

    func actingFor(sessionToken: String) async throws -> any ParseGraphQLBackend {
        var user: Identity
        do {
            user = try await sessions.identity(for: sessionToken, requestId: try callId())
        } catch {
            throw CallFailure.parseError(error, write: false, call: "session lookup", logger: logger)
        }
        user.installationId = identity.installationId
        return GatewayGraphQLBackend(configuration: configuration, client: client, sessions: sessions, apps: apps, logger: logger,
                                     identity: user, request: request, requestId: requestId, serverURL: serverURL, calls: calls)
    }

    /// A body as JSON, or the Parse error an answer of `status` 400 and above carries (`RESTResponse.refusal`).
    private static func body(status: Int, _ text: String) throws -> JSONValue {
        if let refusal = RESTResponse(status: status, body: text).refusal { throw refusal }
        return JSONValue.parse(text) ?? .null
    }

    private static func formEncoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? value
    }
}
