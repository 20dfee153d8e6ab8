import Contracts
import Foundation
import HTTPServer
import ParseWire
import Runtime

/// parse-server's `rateLimit` (`PARSE_SERVER_RATE_LIMIT`): each request, and each request inside a `/batch`, is
/// counted by every rule that covers it, and answered parse-server's `429 {"code":100,"error":<message>}` once a
/// rule's count in its window passes `requestCount`. A request no rule covers costs nothing but the path matches;
/// without rules the gateway does not even connect to PostgreSQL.
struct RateLimiter: Sendable {
    let rules: [RateLimitRule]
    let counter: RateLimitCounter?
    let logger: Logger

    static let none = RateLimiter(rules: [], counter: nil, logger: Logger(service: "gateway"))

    var isEnabled: Bool { counter != nil && !rules.isEmpty }

    /// Parses the option: a JSON list of rules (or one rule).
    static func rules(from text: String?) throws -> [RateLimitRule] {
        guard let text else { return [] }
        guard let value = JSONValue.parse(text) else {
            throw ConfigurationError("PARSE_SERVER_RATE_LIMIT must be JSON: a list of parse-server rateLimit objects")
        }
        if case .array(let items) = value { return try items.map(RateLimitRule.init) }
        return [try RateLimitRule(value)]
    }

    /// The 429 answer when a rule refuses this request, nil when it may go on. `path` is below the mount.
    func refusal(method: String, path: String, identity: Identity, remoteAddress: String) async -> HTTPResponse? {
        guard let counter, !rules.isEmpty else { return nil }
        for (index, rule) in rules.enumerated()
        where rule.applies(method: method, path: path, identity: identity, remoteAddress: remoteAddress) {
            // Each app counts its own requests (`AppContext`): one app's clients never use up another's limit.
            let app = AppContext.current.map { "app.\($0):" } ?? ""
            let key = "\(app)\(index):\(rule.requestPath):\(rule.zoneKey(identity: identity, remoteAddress: remoteAddress))"
            do {
                let hits = try await counter.hit(key, windowMilliseconds: rule.windowMilliseconds)
                if hits > rule.requestCount {
                    return ParseResponses.json(429, JSONValue.object([
                        "code": .number(Double(ParseError.Code.connectionFailed.rawValue)), "error": .string(rule.message),
                    ]).compactText)
                }
            } catch {
                // A limit that cannot be counted lets the request through rather than failing every request.
                logger.warning("rate limit not counted", ["error": "\(error)"])
            }
        }
        return nil
    }

    /// The refusal of the first sub-request of `batch` a rule refuses: the whole batch is refused before any of
    /// it runs.
    func refusal(batch: BatchRequest, identity: Identity, remoteAddress: String) async -> HTTPResponse? {
        guard isEnabled else { return nil }
        for item in batch.items {
            guard let route = item.route else { continue }
            if let refused = await refusal(method: item.method, path: route, identity: identity, remoteAddress: remoteAddress) {
                return refused
            }
        }
        return nil
    }
}
