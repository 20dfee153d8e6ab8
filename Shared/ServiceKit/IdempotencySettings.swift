import Runtime

/// How a service keeps the answers of writes named by `X-Parse-Request-Id` (parse-server's `idempotencyOptions`;
/// the paths are the gateway's, which marks the requests they cover).
public struct IdempotencySettings: Sendable, Equatable {
    public enum Duplicates: String, Sendable {
        /// A retry gets the first answer again.
        case replay
        /// parse-server's behaviour: `{"code":159,"error":"Duplicate request"}`.
        case reject
    }

    /// How long a request id is remembered (`PARSE_SERVER_IDEMPOTENCY_TTL`, parse-server's `ttl`).
    public var timeToLiveSeconds: Int
    public var duplicates: Duplicates

    public init(timeToLiveSeconds: Int = 300, duplicates: Duplicates = .replay) {
        self.timeToLiveSeconds = timeToLiveSeconds
        self.duplicates = duplicates
    }

    public static func fromEnvironment(_ env: Environment = Environment()) throws -> IdempotencySettings {
        let name = env.string("PARSE_SERVER_IDEMPOTENCY_DUPLICATE", default: "replay")
        guard let duplicates = Duplicates(rawValue: name) else {
            throw ConfigurationError("PARSE_SERVER_IDEMPOTENCY_DUPLICATE must be replay or reject, got '\(name)'")
        }
        return IdempotencySettings(timeToLiveSeconds: try env.int("PARSE_SERVER_IDEMPOTENCY_TTL", default: 300,
                                                                  in: 1...31_536_000),
                                   duplicates: duplicates)
    }
}
