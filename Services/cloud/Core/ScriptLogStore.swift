import Contracts
import Foundation
import ParseWire
import Runtime
import Storage

/// The lines `GET /scriptlog` answers with, as every service sends them (`scriptlog.append.v1`), kept for
/// `retentionDays` and at most `maxLines`.
struct ScriptLogStore: Sendable {
    let pool: PostgresPool
    let retentionDays: Int
    let maxLines: Int

    /// One statement for the whole batch, the entries travelling as one JSON array.
    func append(_ entries: [ScriptLogRecord]) async throws {
        guard !entries.isEmpty else { return }
        // PostgreSQL's text and jsonb refuse the NUL character, which a logged client value may hold.
        let clean = entries.map { entry in
            ScriptLogRecord(time: entry.time, level: entry.level, service: Self.clean(entry.service),
                            message: Self.clean(entry.message),
                            fields: Dictionary(entry.fields.map { (Self.clean($0.key), Self.clean($0.value)) },
                                               uniquingKeysWith: { $1 }))
        }
        let batch = String(decoding: try JSONEncoder().encode(clean), as: UTF8.self)
        _ = try await pool.query("""
            INSERT INTO script_logs (logged_ms, level, service, message, fields)
            SELECT (e->>'time')::bigint, e->>'level', e->>'service', e->>'message', COALESCE(e->'fields', '{}')
            FROM jsonb_array_elements($1::jsonb) AS e
            """, [batch])
    }

    /// parse-server's entry: the line's fields, then `level`, `message` and `timestamp`; here `service` too.
    func find(_ query: ScriptLogQuery) async throws -> JSONValue {
        let order = query.ascending ? "ASC" : "DESC"
        let result = try await pool.query("""
            SELECT logged_ms, level, service, message, fields::text AS fields FROM script_logs
            WHERE logged_ms BETWEEN $1 AND $2 AND ($3::boolean IS NOT TRUE OR level = 'error')
            ORDER BY logged_ms \(order), id \(order) LIMIT $4
            """, [query.from, query.until, query.errorsOnly, query.size])
        return .array(result.rows.map { row in
            var entry = row["fields"].flatMap { JSONValue.parse($0) }?.objectValue ?? [:]
            entry["service"] = .string(row["service"] ?? "")
            entry["level"] = .string(row["level"] ?? "")
            entry["message"] = .string(row["message"] ?? "")
            entry["timestamp"] = .string(CivilCalendar.timestamp(milliseconds: Int64(row["logged_ms"] ?? "") ?? 0))
            return .object(entry)
        })
    }

    /// Deletes the lines past their retention, then the oldest beyond `maxLines`.
    func prune(now: Int64) async throws {
        _ = try await pool.query("DELETE FROM script_logs WHERE logged_ms < $1",
                                 [now - Int64(retentionDays) * 24 * 3_600 * 1_000])
        _ = try await pool.query("""
            DELETE FROM script_logs WHERE id <= (SELECT id FROM script_logs ORDER BY id DESC OFFSET $1 LIMIT 1)
            """, [maxLines])
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000) }

    private static func clean(_ text: String) -> String {
        text.contains("\u{0}") ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : text
    }
}
