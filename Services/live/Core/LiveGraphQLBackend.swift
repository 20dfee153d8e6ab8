import Contracts
import ParseGraphQL
import ParseWire

/// What a GraphQL subscription's event reads beyond the event's object (a relation's objects), read as the
/// subscriber, through the route's owner as REST would. A subscription only reads: anything else is refused.
struct LiveGraphQLBackend: ParseGraphQLBackend {
    let backend: any LiveBackend
    let identity: Identity

    var sessionToken: String? { identity.sessionToken }

    func rest(_ method: String, _ path: String, query: [String: String], body: JSONValue?) async throws -> JSONValue {
        guard method == "GET" else { throw Self.readOnly }
        let answer = try await backend.read(path, query: query, identity: identity)
        if let refusal = answer.refusal { throw refusal }
        return JSONValue.parse(answer.body) ?? .null
    }

    func runFunction(_ name: String, params: JSONValue) async throws -> JSONValue { throw Self.readOnly }

    func uploadFile(name: String, contentType: String?, bytes: [UInt8]) async throws -> JSONValue { throw Self.readOnly }

    func resetPassword(username: String, token: String, password: String) async throws { throw Self.readOnly }

    func actingFor(sessionToken: String) async throws -> any ParseGraphQLBackend { throw Self.readOnly }

    private static let readOnly = ParseError(.operationForbidden, "A subscription's event only reads.")
}
