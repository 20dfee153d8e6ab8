import ParseWire

/// `rest.v1`: a Parse REST call the gateway has authenticated and hands, as it came, to the service that owns
/// the route (`classes/...` to posts, `users`, `login`, `sessions`, `roles` to auth, `files/...` to files).
/// The service answers with the status, headers and JSON body the client gets.
public struct RESTRequest: Codable, Sendable, Equatable {
    public static let type = "rest.v1"

    public var method: String
    /// The path below the mount, without a leading slash: `classes/Cat/QtjcqDbaAi`.
    public var path: String
    public var query: [String: String]
    /// The JSON body as text (nil when there is none), with the SDK's `_method`/key fields already removed.
    public var body: String?
    /// The server URL the client used (`http://host:port/parse`), for `Location` headers and file URLs.
    public var serverURL: String
    /// What Cloud Code triggers are given about the client's request: its headers (lower-cased names, without the
    /// master keys), its address, and the `context` it passed (`X-Parse-Cloud-Context` or the body's `context`).
    public var headers: [String: String]?
    public var ip: String?
    public var context: JSONValue?
    /// Set on a write the client named with `X-Parse-Request-Id` (within `PARSE_SERVER_IDEMPOTENCY_PATHS`): the
    /// service applies it once per request id and answers a retry with the first answer.
    public var idempotent: Bool?
    /// Set on the inner query of a subquery that another service sends to this class's owner
    /// (`ForeignSubqueries`): how deep it is nested, so nesting across services stays bounded.
    public var subqueryDepth: Int?

    // In key order: the encoder then writes the members where they stay (`ValueEncoding.finishObject`).
    private enum CodingKeys: String, CodingKey {
        case body, context, headers, idempotent, ip, method, path, query, serverURL, subqueryDepth
    }

    public init(method: String, path: String, query: [String: String], body: String?, serverURL: String,
                headers: [String: String]? = nil, ip: String? = nil, context: JSONValue? = nil,
                idempotent: Bool? = nil, subqueryDepth: Int? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.serverURL = serverURL
        self.idempotent = idempotent
        self.headers = headers
        self.ip = ip
        self.context = context
        self.subqueryDepth = subqueryDepth
    }
}

public struct RESTResponse: Codable, Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: String

    // In key order: the encoder then writes the members where they stay (`ValueEncoding.finishObject`).
    private enum CodingKeys: String, CodingKey { case body, headers, status }

    public init(status: Int, headers: [String: String] = [:], body: String) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

extension RESTResponse {
    /// The answer as one item of a `/batch` answer: `{"success":<body>}`, or `{"error":{"code","error"}}` for a
    /// refusal, with a code even where the route answered only a status and a message (a route that needs the
    /// master key: 119), so a client can tell every item's refusal apart.
    public var batchItem: JSONValue {
        if let refusal { return Self.batchItem(refusal) }
        return .object(["success": JSONValue.parse(body) ?? .object([:])])
    }

    /// A refusal (status 400 and above) as the Parse error it carries, with a code even where the route answered
    /// only a status and a message; nil for an answer that is not one.
    public var refusal: ParseError? {
        guard status >= 400 else { return nil }
        let body = JSONValue.parse(self.body) ?? .object([:])
        let fallback: ParseError.Code = status == 403 ? .operationForbidden : status == 404 ? .objectNotFound
            : status >= 500 ? .internalServerError : .otherCause
        let code = body["code"]?.numberValue.flatMap { Int(exactly: $0) }.map(ParseError.Code.init(rawValue:)) ?? fallback
        let message = body["error"]?.stringValue ?? body["message"]?.stringValue ?? "HTTP \(status)"
        return ParseError(code, message)
    }

    /// A refusal as one item of a `/batch` answer.
    public static func batchItem(_ error: ParseError) -> JSONValue {
        .object(["error": .object(["code": .number(Double(error.code.rawValue)), "error": .string(error.message)])])
    }
}
