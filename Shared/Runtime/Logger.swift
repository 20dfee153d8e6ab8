#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Writes one JSON object per line to standard error: `time`, `level`, `service`, `msg`, then
/// the logger's metadata (for example `request.id`) and the call's own fields, and `trace.id` when the line is
/// written for a request under way (`TraceContext.current`), with `msg.id` and `request.id` while a command is
/// handled (`MessageContext.current`). The lines `tap` keeps are handed to it as well, for
/// `GET /scriptlog`.
public struct Logger: Sendable {
    public let service: String
    public var level: LogLevel
    public private(set) var metadata: [String: String]
    let tap: ScriptLogTap

    public init(service: String, level: LogLevel = .info, metadata: [String: String] = [:],
                tap: ScriptLogTap = .shared) {
        self.service = service
        self.level = level
        self.metadata = metadata
        self.tap = tap
    }

    /// A copy that adds `value` under `key` to every line it writes.
    public func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy.metadata[key] = value
        return copy
    }

    /// The fields are only built when debug lines are written: requests log here on their hot path.
    public func debug(_ message: String, _ fields: @autoclosure () -> [String: String] = [:]) {
        guard LogLevel.debug >= level || tap.keeps(.debug) else { return }
        log(.debug, message, fields())
    }
    public func info(_ message: String, _ fields: [String: String] = [:]) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: [String: String] = [:]) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: [String: String] = [:]) { log(.error, message, fields) }

    public func log(_ lineLevel: LogLevel, _ message: String, _ fields: [String: String] = [:]) {
        write(lineLevel, keptAs: ScriptLogLevel(lineLevel), message, fields)
    }

    /// A line about one finished request, as a web server's access log has: written at info, and kept for
    /// `/scriptlog` at verbose, where parse-server keeps its request lines. Its fields come as pairs, written in
    /// their order after the metadata: one such line per request, so it builds no dictionary unless it is kept.
    public func access(_ message: String, _ fields: [(String, String)]) {
        let writes = LogLevel.info >= level
        let keeps = tap.keeps(.verbose)
        guard writes || keeps else { return }
        let time = Self.now()
        let fields = TraceContext.current.map { fields + [("trace.id", $0.traceId)] } ?? fields
        if keeps {
            let allFields = metadata.merging(fields, uniquingKeysWith: { _, new in new })
            tap.add(ScriptLogRecord(time: time, level: .verbose, service: service, message: message, fields: allFields))
        }
        guard writes else { return }
        emit(time: time, level: .info, message, metadata.sorted(by: { $0.key < $1.key }) + fields)
    }

    private func write(_ lineLevel: LogLevel, keptAs keptLevel: ScriptLogLevel, _ message: String, _ fields: [String: String]) {
        let writes = lineLevel >= level
        let keeps = tap.keeps(keptLevel)
        guard writes || keeps else { return }
        let time = Self.now()
        var allFields = metadata.merging(fields, uniquingKeysWith: { _, new in new })
        if let trace = TraceContext.current { allFields["trace.id"] = trace.traceId }
        if let message = MessageContext.current {
            allFields["msg.id"] = message.messageId
            if allFields["request.id"] == nil { allFields["request.id"] = message.correlationId }
        }
        if keeps {
            tap.add(ScriptLogRecord(time: time, level: keptLevel, service: service, message: message, fields: allFields))
        }
        guard writes else { return }
        emit(time: time, level: lineLevel, message, allFields.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value) })
    }

    private func emit(time: Int64, level lineLevel: LogLevel, _ message: String, _ fields: [(String, String)]) {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line += "{\"time\":\"\(CivilCalendar.timestamp(milliseconds: time))\",\"level\":\"\(lineLevel.name)\",\"service\":".utf8
        JSONEscaping.write(service, into: &line)
        line += ",\"msg\":".utf8
        JSONEscaping.write(message, into: &line)
        for (key, value) in fields {
            line.append(UInt8(ascii: ","))
            JSONEscaping.write(key, into: &line)
            line.append(UInt8(ascii: ":"))
            JSONEscaping.write(value, into: &line)
        }
        line += "}\n".utf8
        // One write(2) per line keeps lines from concurrent tasks whole.
        line.withUnsafeBufferPointer { buffer in
            _ = Glibc.write(2, buffer.baseAddress, buffer.count)
        }
    }

    private static func now() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec / 1_000_000)
    }
}
