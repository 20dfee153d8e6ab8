import Contracts
import GraphQL
import HTTPServer
import Messaging
import ParseGraphQL
import ParseWire
import Runtime

/// `POST|GET <graphQLPath>`: parse-server's GraphQL API. The schema is made from the Parse schema and Cloud Code's
/// functions as they are when the request arrives (both read with the master key, at once), and every field is
/// resolved by REST calls as the client (`GatewayGraphQLBackend`). Answers as Apollo Server does: 200 with `data` (and
/// `errors` for failed fields), 400 when the document cannot run.
struct GraphQLRequestHandler {
    let configuration: GatewayConfiguration
    let client: RPCClient
    let sessions: any SessionResolver
    let endpoint: ParseGraphQLEndpoint
    let logger: Logger

    func respond(to request: HTTPRequest, identity: Identity, requestId: String, serverURL: String) async -> HTTPResponse {
        let parsed: GraphQLHTTPRequest
        do {
            parsed = try GraphQLHTTPRequest.parse(method: request.method, contentType: request.headers["Content-Type"], body: request.body,
                                                  query: Dictionary(request.query.map { ($0.name, $0.value) }) { _, last in last })
        } catch {
            return ParseResponses.json(error.status, error.body)
        }
        let schemas: JSONValue, functions: JSONValue
        do {
            async let readSchemas = masterRead("schemas", owner: .posts, requestId: "\(requestId).schemas", serverURL: serverURL)
            async let readFunctions = masterRead("cloud_code/functions", owner: .cloud, requestId: "\(requestId).functions",
                                                 serverURL: serverURL)
            (schemas, functions) = try await (readSchemas, readFunctions)
        } catch {
            let failure = CallFailure.parseError(error, write: false, call: "graphql schema read", logger: logger)
            return ParseResponses.json(failure.httpStatus, GraphQLResponse(data: nil, errors: [ParseGraphQLErrors.reported(failure)]).jsonText)
        }
        let backend = GatewayGraphQLBackend(configuration: configuration, client: client, sessions: sessions, logger: logger,
                                            identity: identity, request: request, requestId: requestId, serverURL: serverURL,
                                            calls: .init())
        let response = await endpoint.execute(parsed.request, schemas: schemas,
                                              functionNames: (functions["results"]?.arrayValue ?? []).compactMap(\.stringValue),
                                              backend: backend, uploads: parsed.uploads)
        return ParseResponses.json(response.data == nil ? 400 : 200, response.jsonText)
    }

    private func masterRead(_ path: String, owner: ServiceName, requestId: String, serverURL: String) async throws -> JSONValue {
        let answer: RESTResponse = try await client.send(RESTRequest.type, RESTRequest(method: "GET", path: path, query: [:], body: nil,
                                                                                       serverURL: serverURL),
                                                         to: owner, requestId: requestId, identity: .master,
                                                         timeout: configuration.requestTimeout, safeToRunTwice: true)
        guard answer.status < 400, let json = JSONValue.parse(answer.body) else {
            throw ParseError(.internalServerError, "Internal server error")
        }
        return json
    }
}
