import Contracts
import Foundation
import ParseWire
import Runtime

/// One entry of parse-server's `rateLimit` option: at most `requestCount` requests per `requestTimeWindow`
/// milliseconds on the paths `requestPath` matches, counted per `zone`.
struct RateLimitRule: Sendable {
    enum Zone: String, Sendable {
        case global, ip, user, session
    }

    static let options: Set<String> = ["requestPath", "requestTimeWindow", "requestCount", "errorResponseMessage",
                                       "requestMethods", "includeMasterKey", "includeInternalRequests", "redisUrl",
                                       "zone"]
    /// parse-server's `RateLimitOptions.errorResponseMessage` default.
    static let defaultMessage = "Too many requests."
    /// What parse-server takes for an internal request: the loopback address.
    static let internalAddresses: Set<String> = ["127.0.0.1", "::1", "::ffff:127.0.0.1"]

    let requestPath: String
    let windowMilliseconds: Int
    let requestCount: Int
    let message: String
    let methods: Methods?
    let includeMasterKey: Bool
    let includeInternalRequests: Bool
    let zone: Zone
    private let path: NSRegularExpression

    enum Methods: Sendable {
        case list(Set<String>)
        case pattern(NSRegularExpression)

        func contains(_ method: String) -> Bool {
            switch self {
            case .list(let methods): methods.contains(method)
            case .pattern(let expression):
                expression.firstMatch(in: method, range: NSRange(method.startIndex..., in: method)) != nil
            }
        }
    }

    init(_ value: JSONValue) throws {
        guard case .object(let fields) = value else { throw ConfigurationError("PARSE_SERVER_RATE_LIMIT: each entry must be an object") }
        if let unknown = fields.keys.sorted().first(where: { !Self.options.contains($0) }) {
            throw ConfigurationError("PARSE_SERVER_RATE_LIMIT: Invalid rate limit option \"\(unknown)\"")
        }
        guard let path = fields["requestPath"]?.stringValue else {
            throw ConfigurationError("PARSE_SERVER_RATE_LIMIT: requestPath must be a string")
        }
        guard let window = fields["requestTimeWindow"]?.numberValue, window >= 1, window < 1e12 else {
            throw ConfigurationError("PARSE_SERVER_RATE_LIMIT: requestTimeWindow must be a number of milliseconds")
        }
        guard let count = fields["requestCount"]?.numberValue, count >= 0, count < 1e12 else {
            throw ConfigurationError("PARSE_SERVER_RATE_LIMIT: requestCount must be a number")
        }
        requestPath = path
        windowMilliseconds = Int(window)
        requestCount = Int(count)
        message = try Self.optional(fields, "errorResponseMessage", \.stringValue, "a string") ?? Self.defaultMessage
        includeMasterKey = try Self.optional(fields, "includeMasterKey", \.boolValue, "a boolean") ?? false
        includeInternalRequests = try Self.optional(fields, "includeInternalRequests", \.boolValue, "a boolean") ?? false
        let zoneName = try Self.optional(fields, "zone", \.stringValue, "a string") ?? "ip"
        guard let zone = Zone(rawValue: zoneName) else {
            throw ConfigurationError("PARSE_SERVER_RATE_LIMIT: zone must be one of global, ip, user, session")
        }
        self.zone = zone
        if fields["redisUrl"] != nil {
            throw ConfigurationError("PARSE_SERVER_RATE_LIMIT: redisUrl is not supported; counts are kept in PostgreSQL")
        }
        switch fields["requestMethods"] {
        case nil, .null?: methods = nil
        case .string(let pattern)?: methods = .pattern(try Self.expression(pattern, "requestMethods"))
        case .array(let items)?:
            let names = items.compactMap(\.stringValue)
            guard names.count == items.count else {
                throw ConfigurationError("PARSE_SERVER_RATE_LIMIT: requestMethods must be a string or a list of strings")
            }
            methods = .list(Set(names.map { $0.uppercased() }))
        default:
            throw ConfigurationError("PARSE_SERVER_RATE_LIMIT: requestMethods must be a string or a list of strings")
        }
        self.path = try Self.expression(Self.regex(forRoute: path), "requestPath", caseInsensitive: true)
    }

    /// Express's route syntax as parse-server reads `requestPath`: `*` is anything, `:name` one segment, the
    /// rest literal; the whole path must match, an ending slash allowed.
    static func regex(forRoute route: String) -> String {
        var pattern = "^"
        var index = route.startIndex
        while index < route.endIndex {
            let character = route[index]
            if character == "*" {
                pattern += "(.*)"
            } else if character == ":" {
                var end = route.index(after: index)
                while end < route.endIndex, route[end].isLetter || route[end].isNumber || route[end] == "_" {
                    end = route.index(after: end)
                }
                pattern += "([^/]+?)"
                index = end
                continue
            } else {
                pattern += NSRegularExpression.escapedPattern(for: String(character))
            }
            index = route.index(after: index)
        }
        if pattern.hasSuffix("/") { pattern.removeLast() }
        return pattern + "/?$"
    }

    /// Whether the rule counts this request (parse-server's `skip`, negated, after the path matched).
    func applies(method: String, path: String, identity: Identity, remoteAddress: String) -> Bool {
        let routed = "/" + path
        guard self.path.firstMatch(in: routed, range: NSRange(routed.startIndex..., in: routed)) != nil else { return false }
        if Self.internalAddresses.contains(remoteAddress) && !includeInternalRequests { return false }
        if includeMasterKey { return true }
        if let methods, !methods.contains(method) { return false }
        return !(identity.isMaster || identity.isReadOnlyMaster)
    }

    /// Whose requests share a count.
    func zoneKey(identity: Identity, remoteAddress: String) -> String {
        switch zone {
        case .global: "global"
        case .session: identity.sessionToken.map { "session:" + $0 } ?? "ip:" + remoteAddress
        case .user: identity.userId.map { "user:" + $0 } ?? "ip:" + remoteAddress
        case .ip: "ip:" + remoteAddress
        }
    }

    private static func optional<T>(_ fields: [String: JSONValue], _ key: String, _ read: (JSONValue) -> T?,
                                    _ kind: String) throws -> T? {
        guard let value = fields[key] else { return nil }
        if case .null = value { return nil }
        guard let typed = read(value) else { throw ConfigurationError("PARSE_SERVER_RATE_LIMIT: \(key) must be \(kind)") }
        return typed
    }

    private static func expression(_ pattern: String, _ option: String, caseInsensitive: Bool = false) throws -> NSRegularExpression {
        do {
            return try NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
        } catch {
            throw ConfigurationError("PARSE_SERVER_RATE_LIMIT: \(option) '\(pattern)' is not a valid pattern")
        }
    }
}
