import Foundation
import ParseWire
import Runtime

/// parse-server 9's `routeAllowList`: when set, a client's request reaches only the routes one of these regular
/// expressions matches whole (`classes/Chat.*`, `users`, `functions/getMenu`), matched against the route below
/// the mount (`classes/Chat/abc`); every other is refused with 119 before any service sees it. An empty list
/// refuses every client request. The master and maintenance keys pass; file downloads and uploads, the
/// public pages, health and LiveQuery are not covered, as in parse-server.
struct RouteAllowList: @unchecked Sendable {
    // NSRegularExpression is immutable once made and safe to use from any thread.
    private let patterns: [NSRegularExpression]

    init(_ items: [String]) throws {
        patterns = try items.map { item in
            do {
                return try NSRegularExpression(pattern: "^(?:\(item))$")
            } catch {
                throw ConfigurationError("PARSE_SERVER_ROUTE_ALLOW_LIST: '\(item)' is not a regular expression")
            }
        }
    }

    /// `PARSE_SERVER_ROUTE_ALLOW_LIST`: a JSON array (`[]` refuses every client request) or a comma-separated list;
    /// unset, every route is open.
    static func fromEnvironment(_ env: Environment) throws -> RouteAllowList? {
        guard let text = env.optional("PARSE_SERVER_ROUTE_ALLOW_LIST") else { return nil }
        if text.hasPrefix("[") {
            guard let items = JSONValue.parse(text)?.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw ConfigurationError("PARSE_SERVER_ROUTE_ALLOW_LIST must be a JSON array of regular expressions")
            }
            return try RouteAllowList(items.compactMap(\.stringValue))
        }
        return try RouteAllowList(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    func allows(_ route: String) -> Bool {
        let range = NSRange(route.startIndex..., in: route)
        return patterns.contains { $0.firstMatch(in: route, range: range) != nil }
    }

    /// The refusal of a request to `path`, or of the first sub-request of a batch the list does not allow.
    func refusal(path: String, method: String, fields: [String: JSONValue]?, mountPath: String) -> ParseError? {
        guard allows(path) else { return Self.refusal(path) }
        if path == "batch", method == "POST", let batch = fields.flatMap({ BatchRequest(fields: $0, mountPath: mountPath) }) {
            for item in batch.items {
                let route = item.route ?? item.path
                if !allows(route) { return Self.refusal(route) }
            }
        }
        return nil
    }

    static func refusal(_ route: String) -> ParseError {
        ParseError(.operationForbidden, "Route '\(route)' is not allowed by the routeAllowList option.")
    }
}
