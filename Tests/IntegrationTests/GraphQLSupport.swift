import Foundation

/// Requests to the GraphQL API (`/graphql` beside the REST mount, as parse-server serves it), with the same headers
/// as REST: the application id always, the master key or a session token when asked.
enum GraphQLAPI {
    static let url: String = {
        if let url = TestStack.environment["PARSE_TEST_GRAPHQL_URL"] { return url }
        var components = URLComponents(string: TestStack.serverURL)!
        components.path = "/graphql"
        return components.string!
    }()

    static func headers(master: Bool = false, token: String? = nil) -> [String: String] {
        var headers = HTTP.appHeaders
        if master { headers["X-Parse-Master-Key"] = TestStack.masterKey }
        if let token { headers["X-Parse-Session-Token"] = token }
        return headers
    }

    static func run(_ query: String, _ variables: [String: Any] = [:], master: Bool = false, token: String? = nil,
                    headers extra: [String: String] = [:]) async throws -> Reply {
        var headers = headers(master: master, token: token).merging(extra) { $1 }
        headers["Content-Type"] = "application/json"
        let body = try JSONSerialization.data(withJSONObject: ["query": query, "variables": variables])
        return try await HTTP.send("POST", "", headers: headers, body: body, base: url)
    }

    /// The `data` of an answer that has no errors; a test failure with the answer otherwise.
    static func data(_ query: String, _ variables: [String: Any] = [:], master: Bool = false,
                     token: String? = nil) async throws -> [String: Any] {
        let reply = try await run(query, variables, master: master, token: token)
        guard reply.status == 200, let json = reply.json, json["errors"] == nil, let data = json["data"] as? [String: Any] else {
            throw PostsTestError(description: "graphql \(query) answered \(reply.status) \(reply.text)")
        }
        return data
    }

    /// The errors of an answer, as `(message, extensions.code)`.
    static func errors(_ reply: Reply) -> [(String, Int?)] {
        ((reply.json?["errors"] as? [[String: Any]]) ?? []).map {
            (($0["message"] as? String) ?? "", ($0["extensions"] as? [String: Any])?["code"] as? Int)
        }
    }

    /// A value at a path of keys and indexes (`["cats", "edges", 0, "node"]`).
    static func at(_ value: Any?, _ path: [Any]) -> Any? {
        var current = value
        for step in path {
            if let key = step as? String { current = (current as? [String: Any])?[key] }
            if let index = step as? Int { current = (current as? [Any]).flatMap { $0.indices.contains(index) ? $0[index] : nil } }
        }
        return current
    }

    /// The nodes of a connection: `edges[].node`.
    static func nodes(_ connection: Any?) -> [[String: Any]] {
        ((connection as? [String: Any])?["edges"] as? [[String: Any]] ?? []).compactMap { $0["node"] as? [String: Any] }
    }

    /// A class's name as its GraphQL get query has it (`Cat` -> `cat`).
    static func fieldName(_ className: String) -> String { className.prefix(1).lowercased() + className.dropFirst() }

    static func globalID(_ className: String, _ objectId: String) -> String {
        Data("\(className):\(objectId)".utf8).base64EncodedString()
    }
}
