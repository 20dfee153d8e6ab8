import Contracts
import GraphQL
import HTTPServer
import Messaging
import ParseGraphQL
import ParseWire
import Runtime

/// `POST|GET <graphQLPath>`: parse-server's GraphQL API. The schema is made from the Parse schema and Cloud Code's
/// functions (both read with the master key, at once, when `ParseGraphQLEndpoint` needs them), and every field is
/// resolved by REST calls as the client (`GatewayGraphQLBackend`). Answers as Apollo Server does: 200 with `data` (and
/// `errors` for failed fields), 400 when the document cannot run.
struct GraphQLRequestHandler {
    let configuration: GatewayConfiguration
    let client: RPCClient
    let sessions: any SessionResolver
    let endpoint: ParseGraphQLEndpoint
    /// The apps besides the stack's own, for the uploads of another app's request.
    let apps: AppDirectory
    let logger: Logger

    func respond(to request: HTTPRequest, identity: Identity, requestId: String, serverURL: String) async -> HTTPResponse {
        let parsed: GraphQLHTTPRequest
        do {
            parsed = try GraphQLHTTPRequest.parse(method: request.method, contentType: request.headers["Content-Type"], body: request.body,
                                                  query: Dictionary(request.query.map { ($0.name, $0.value) }) { _, last in last })
        } catch {
            return ParseResponses.json(error.status, error.body)
        }
        let backend = GatewayGraphQLBackend(configuration: configuration, client: client, sessions: sessions, apps: apps, logger: logger,
                                            identity: identity, request: request, requestId: requestId, serverURL: serverURL,
                                            calls: .init(limit: configuration.graphQLMaximumCalls))
        let limits = identity.isMaster || identity.isReadOnlyMaster ? GraphQLLimits.none : configuration.graphQLLimits
        let response = await endpoint.execute(parsed.request, backend: backend, uploads: parsed.uploads, limits: limits) { [self] in
            try await ParseGraphQLInputs.read { path in
                try await masterRead(path, requestId: "\(requestId).\(path.prefix { $0 != "/" })", serverURL: serverURL)
            }
        }
        let status = Self.status(of: response)
        return ParseResponses.json(status, response.jsonText, extra: status == 503 ? [("Retry-After", "1")] : [])
    }

    /// 200 when the document ran; when it could not, 400, or the status of the outage that kept it from running
    /// (the schema could not be read), a 503 with `Retry-After` as REST's.
    static func status(of response: GraphQLResponse) -> Int {
        guard response.data == nil else { return 200 }
        if case .int(let code)? = response.errors.first?.extensions?["code"],
           [ParseError.Code.internalServerError, .connectionFailed, .timeout].contains(ParseError.Code(rawValue: code)) {
            return ParseError(ParseError.Code(rawValue: code), "").httpStatus
        }
        return 400
    }

    private func masterRead(_ path: String, requestId: String, serverURL: String) async throws -> JSONValue {
        let answer: RESTResponse
        do {
            guard let owner = ServiceRoute.owner(of: path) else { throw ParseError(.internalServerError, "no owner of \(path)") }
            answer = try await client.send(RESTRequest.type, RESTRequest(method: "GET", path: path, query: [:], body: nil, serverURL: serverURL),
                                           to: owner, requestId: requestId, identity: .master, timeout: configuration.requestTimeout,
                                           safeToRunTwice: true)
        } catch {
            throw CallFailure.parseError(error, write: false, call: "graphql schema read", logger: logger)
        }
        // A service's outage (its database gone: 503, code 100) stays what it is, for the client to retry.
        if let refusal = answer.refusal { throw refusal }
        guard let json = JSONValue.parse(answer.body) else { throw ParseError(.internalServerError, "Internal server error") }
        return json
    }
}
