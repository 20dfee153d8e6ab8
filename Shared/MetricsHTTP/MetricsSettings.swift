import Metrics
import Runtime

/// `PARSE_METRICS` (on unless `0`/`false`), `PARSE_METRICS_PORT` (a backend service's metrics port; unset: none)
/// and `PARSE_METRICS_HOST` (its bind address, loopback unless told).
public struct MetricsSettings: Sendable, Equatable {
    public var enabled: Bool
    public var port: UInt16?
    public var host: String

    public init(enabled: Bool = true, port: UInt16? = nil, host: String = "127.0.0.1") {
        self.enabled = enabled
        self.port = port
        self.host = host
    }

    public static func fromEnvironment(_ env: Environment = Environment()) throws -> MetricsSettings {
        let switchText = env.string("PARSE_METRICS", default: "1").lowercased()
        guard ["1", "0", "true", "false", "on", "off", "yes", "no"].contains(switchText) else {
            throw ConfigurationError("PARSE_METRICS must be 1 or 0 (true or false), got '\(switchText)'")
        }
        let port = env.optional("PARSE_METRICS_PORT") == nil
            ? nil : UInt16(try env.int("PARSE_METRICS_PORT", default: 0, in: 1...65_535))
        return MetricsSettings(enabled: ["1", "true", "on", "yes"].contains(switchText), port: port,
                               host: env.string("PARSE_METRICS_HOST", default: "127.0.0.1"))
    }
}
