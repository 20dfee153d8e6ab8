import Foundation

/// Queries on `/users`, `/roles`, `/sessions` as the SDKs send them: JSON-encoded parameters in the query string,
/// or a `_method: GET` body.
enum AuthQuery {
    enum Caller {
        case anonymous, master, readOnlyMaster
        case user(String)
    }

    static func headers(_ caller: Caller) -> [String: String] {
        var headers = HTTP.appHeaders
        headers["Content-Type"] = "application/json"
        switch caller {
        case .anonymous: break
        case .master: headers["X-Parse-Master-Key"] = TestStack.masterKey
        case .readOnlyMaster: headers["X-Parse-Master-Key"] = TestStack.readOnlyMasterKey
        case .user(let token): headers["X-Parse-Session-Token"] = token
        }
        return headers
    }

    /// `GET /<route>?where=...&...`; string parameters go as they are, others JSON-encoded.
    static func find(_ route: String, _ whereClause: [String: Any]? = nil, _ parameters: [String: Any] = [:],
                     as caller: Caller) async throws -> Reply {
        var all = parameters
        if let whereClause { all["where"] = whereClause }
        var items: [String] = []
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            let text: String
            if let string = value as? String { text = string } else {
                text = String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]), as: UTF8.self)
            }
            items.append(key + "=" + (text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text))
        }
        let path = "/" + route + (items.isEmpty ? "" : "?" + items.joined(separator: "&"))
        return try await HTTP.send("GET", path, headers: headers(caller))
    }

    /// The same query as a POST with `_method: GET` (how the JavaScript SDK sends long queries).
    static func post(_ route: String, _ body: [String: Any], as caller: Caller) async throws -> Reply {
        var body = body
        body["_method"] = "GET"
        return try await HTTP.send("POST", "/" + route, headers: headers(caller),
                                   body: try JSONSerialization.data(withJSONObject: body))
    }

    static func results(_ reply: Reply) -> [[String: Any]] {
        (reply.json?["results"] as? [[String: Any]]) ?? []
    }

    /// The objectIds of the results, in order.
    static func ids(_ reply: Reply) -> [String] {
        results(reply).compactMap { $0["objectId"] as? String }
    }

    static func pointer(_ className: String, _ id: String) -> [String: Any] {
        ["__type": "Pointer", "className": className, "objectId": id]
    }

    static func date(_ date: Date) -> [String: Any] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return ["__type": "Date", "iso": formatter.string(from: date)]
    }
}
