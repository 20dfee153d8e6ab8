/// `scriptlog.append.v1` (every process to cloud): log lines kept for `GET /scriptlog`, a batch at a time. cloud
/// stores them as they come; a batch sent twice is stored twice, which a log can bear.
public struct AppendScriptLogs: Codable, Sendable, Equatable {
    public static let type = "scriptlog.append.v1"

    public struct Entry: Codable, Sendable, Equatable {
        /// Milliseconds since 1970, UTC.
        public var time: Int64
        /// parse-server's level name (`error`, `warn`, `info`, `verbose`, `debug`).
        public var level: String
        public var service: String
        public var message: String
        public var fields: [String: String]

        public init(time: Int64, level: String, service: String, message: String, fields: [String: String]) {
            self.time = time
            self.level = level
            self.service = service
            self.message = message
            self.fields = fields
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }
}
