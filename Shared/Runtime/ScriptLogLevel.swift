/// Which log lines are kept for `GET /scriptlog` (`PARSE_SERVER_LOG_LEVEL`), in parse-server's level names, from
/// the fewest lines to the most. `verbose` adds the gateway's access lines, as parse-server keeps its request lines
/// at verbose. `debug` adds every debug line; here those are internal traces, noisier than the access lines, so
/// debug comes after verbose (parse-server orders the two the other way).
public enum ScriptLogLevel: Int, Sendable, Comparable, CaseIterable, Codable {
    case error, warn, info, verbose, debug

    /// Encoded by parse-server's name, as `/scriptlog` answers it.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let level = ScriptLogLevel(name: name) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown level \(name)"))
        }
        self = level
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }

    public init?(name: String) {
        switch name.lowercased() {
        case "error": self = .error
        case "warn", "warning": self = .warn
        case "info": self = .info
        case "verbose": self = .verbose
        case "debug", "silly": self = .debug
        default: return nil
        }
    }

    /// The level a line of `level` is kept as.
    public init(_ level: LogLevel) {
        switch level {
        case .debug: self = .debug
        case .info: self = .info
        case .warning: self = .warn
        case .error: self = .error
        }
    }

    /// parse-server's name, as `/scriptlog` answers it.
    public var name: String {
        switch self {
        case .error: "error"
        case .warn: "warn"
        case .info: "info"
        case .verbose: "verbose"
        case .debug: "debug"
        }
    }

    public static func < (lhs: ScriptLogLevel, rhs: ScriptLogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension ScriptLogLevel {
    /// `PARSE_SERVER_LOG_LEVEL`, as parse-server names it: `info` unless set; `silent` keeps nothing (nil).
    public static func kept(_ env: Environment) throws -> ScriptLogLevel? {
        let name = env.string("PARSE_SERVER_LOG_LEVEL", default: "info")
        if name.lowercased() == "silent" { return nil }
        guard let level = ScriptLogLevel(name: name) else {
            throw ConfigurationError("PARSE_SERVER_LOG_LEVEL must be error, warn, info, verbose, debug or silent, got '\(name)'")
        }
        return level
    }
}
