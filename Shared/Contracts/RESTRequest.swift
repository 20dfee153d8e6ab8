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
    /// Set on a write the client named with `X-Parse-Request-Id` (within `PARSE_SERVER_IDEMPOTENCY_PATHS`): the
    /// service applies it once per request id and answers a retry with the first answer.
    public var idempotent: Bool?

    public init(method: String, path: String, query: [String: String], body: String?, serverURL: String,
                idempotent: Bool? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.serverURL = serverURL
        self.idempotent = idempotent
    }
}

public struct RESTResponse: Codable, Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: String

    public init(status: Int, headers: [String: String] = [:], body: String) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

extension RESTRequest: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = [
            "method": .string(method), "path": .string(path), "query": .strings(query), "serverURL": .string(serverURL),
        ]
        if let body { fields["body"] = .string(body) }
        if let idempotent { fields["idempotent"] = .bool(idempotent) }
        return .object(fields)
    }

    public init?(jsonValue: JSONValue) {
        guard let method = jsonValue["method"]?.stringValue, let path = jsonValue["path"]?.stringValue,
              let query = jsonValue["query"]?.stringDictionary, let serverURL = jsonValue["serverURL"]?.stringValue,
              case .some(let body) = jsonValue.optionalString("body") else { return nil }
        self.init(method: method, path: path, query: query, body: body, serverURL: serverURL,
                  idempotent: jsonValue["idempotent"]?.boolValue)
    }
}

extension RESTResponse: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        .object(["status": .number(Double(status)), "headers": .strings(headers), "body": .string(body)])
    }

    public init?(jsonValue: JSONValue) {
        guard let status = jsonValue["status"]?.numberValue.flatMap({ Int(exactly: $0) }),
              let headers = jsonValue["headers"]?.stringDictionary, let body = jsonValue["body"]?.stringValue else { return nil }
        self.init(status: status, headers: headers, body: body)
    }
}
