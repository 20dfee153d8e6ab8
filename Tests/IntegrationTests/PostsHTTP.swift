import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Calls to the object routes as an SDK makes them: JSON bodies, app id header, master key when asked.
enum PostsHTTP {
    static func send(_ method: String, _ path: String, _ body: Any? = nil, master: Bool = false,
                     query: [String: String] = [:], headers extra: [String: String] = [:]) async throws -> Reply {
        var headers = HTTP.appHeaders.merging(extra) { $1 }
        if master { headers["X-Parse-Master-Key"] = TestStack.masterKey }
        headers["Content-Type"] = "application/json"
        var fullPath = path
        if !query.isEmpty {
            var components = URLComponents()
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            // `+` is a space in query strings; encode it so regexes and dates survive.
            fullPath += "?" + (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        }
        let data: Data? = switch body {
        case nil: nil
        case let text as String: Data(text.utf8)
        case let value?: try JSONSerialization.data(withJSONObject: value)
        }
        return try await HTTP.send(method, fullPath, headers: headers, body: data)
    }

    /// A class name no other test uses.
    static func uniqueClass(_ prefix: String) -> String {
        prefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(10)
    }

    static func create(_ className: String, _ fields: [String: Any], master: Bool = false) async throws -> String {
        let reply = try await send("POST", "/classes/\(className)", fields, master: master)
        guard reply.status == 201, let id = reply.json?["objectId"] as? String else {
            throw PostsTestError(description: "create failed: \(reply.status) \(reply.text)")
        }
        return id
    }

    /// `GET /classes/<C>` with JSON-encoded parameters, as the SDKs send them; the results' field `key`.
    static func find(_ className: String, _ parameters: [String: Any], master: Bool = false) async throws -> Reply {
        var query: [String: String] = [:]
        for (key, value) in parameters {
            if let text = value as? String { query[key] = text; continue }
            let data = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
            query[key] = String(decoding: data, as: UTF8.self)
        }
        return try await send("GET", "/classes/\(className)", master: master, query: query)
    }

    static func results(_ reply: Reply) -> [[String: Any]] {
        (reply.json?["results"] as? [[String: Any]]) ?? []
    }

    static func pointer(_ className: String, _ id: String) -> [String: Any] {
        ["__type": "Pointer", "className": className, "objectId": id]
    }
}

struct PostsTestError: Error, CustomStringConvertible { let description: String }

extension Reply {
    var code: Int? { json?["code"] as? Int }
    var error: String? { json?["error"] as? String }
    /// A body that is a JSON array of objects, as `/cloud_code/jobs` answers.
    var jsonArray: [[String: Any]]? { (try? JSONSerialization.jsonObject(with: body)) as? [[String: Any]] }
}
