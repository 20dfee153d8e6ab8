import Runtime

/// `scriptlog.append.v1` (every process to cloud): log lines kept for `GET /scriptlog`, a batch at a time. cloud
/// stores them as they come; a batch sent twice is stored twice, which a log can bear. A batch holds one app's lines
/// and is sent under that app (`AppContext`), whose store keeps them.
public struct AppendScriptLogs: Codable, Sendable, Equatable {
    public static let type = "scriptlog.append.v1"

    public var entries: [ScriptLogRecord]

    public init(entries: [ScriptLogRecord]) { self.entries = entries }
}
