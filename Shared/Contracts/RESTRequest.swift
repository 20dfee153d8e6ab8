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

    public init(method: String, path: String, query: [String: String], body: String?, serverURL: String) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.serverURL = serverURL
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
