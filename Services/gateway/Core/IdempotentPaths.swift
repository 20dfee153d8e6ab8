import Foundation
import Runtime

/// Which writes the services apply once per `X-Parse-Request-Id`: parse-server's `idempotencyOptions.paths`,
/// regular expressions matched from the start of the path below the mount (`classes/Cat`, `users`, `batch`). On
/// for every write unless `PARSE_SERVER_IDEMPOTENCY` is `false`, unlike parse-server, where it is opt-in.
struct IdempotentPaths: Sendable {
    private let expressions: [NSRegularExpression]

    init(_ patterns: [String]) throws {
        expressions = try patterns.map { pattern in
            do {
                return try NSRegularExpression(pattern: pattern.hasPrefix("^") ? pattern : "^" + pattern)
            } catch {
                throw ConfigurationError("PARSE_SERVER_IDEMPOTENCY_PATHS: '\(pattern)' is not a regular expression")
            }
        }
    }

    static let none = try! IdempotentPaths([])

    /// Whether a `method` request on `path` (below the mount, no leading slash) is applied once per request id.
    func covers(method: String, path: String) -> Bool {
        guard method == "POST" || method == "PUT" || method == "DELETE" else { return false }
        let range = NSRange(path.startIndex..., in: path)
        return expressions.contains { $0.firstMatch(in: path, range: range) != nil }
    }

    static func fromEnvironment(_ env: Environment) throws -> IdempotentPaths {
        let enabled = env.string("PARSE_SERVER_IDEMPOTENCY", default: "true")
        guard enabled == "true" || enabled == "false" else {
            throw ConfigurationError("PARSE_SERVER_IDEMPOTENCY must be true or false, got '\(enabled)'")
        }
        if enabled == "false" { return .none }
        guard let text = env.optional("PARSE_SERVER_IDEMPOTENCY_PATHS") else { return try IdempotentPaths([".*"]) }
        if text.hasPrefix("[") {
            guard let list = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else {
                throw ConfigurationError("PARSE_SERVER_IDEMPOTENCY_PATHS must be a JSON array of strings or a comma list")
            }
            return try IdempotentPaths(list)
        }
        return try IdempotentPaths(env.list("PARSE_SERVER_IDEMPOTENCY_PATHS", default: []))
    }
}
