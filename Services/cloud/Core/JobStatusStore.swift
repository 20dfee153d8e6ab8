import Foundation
import ParseWire
import Storage

/// `_JobStatus`: one row per job run, with parse-server's fields.
struct JobStatusStore: Sendable {
    let pool: PostgresPool

    static let columns = "object_id, job_name, source, status, message, params::text AS params, created_at, updated_at, finished_at"

    func create(jobName: String, params: JSONValue, source: String = "api") async throws -> String {
        let objectId = ObjectId.make()
        _ = try await pool.query("""
            INSERT INTO job_status (object_id, job_name, status, params, source) VALUES ($1, $2, 'running', $3::jsonb, $4)
            """, [objectId, jobName, JSONText.encode(params), source])
        return objectId
    }

    func finish(_ objectId: String, status: String, message: String?) async throws {
        _ = try await pool.query("""
            UPDATE job_status SET status = $2, message = COALESCE($3, message), finished_at = now(), updated_at = now()
            WHERE object_id = $1
            """, [objectId, status, message])
    }

    func status(_ objectId: String) async throws -> String? {
        try await pool.query("SELECT status FROM job_status WHERE object_id = $1", [objectId]).first?["status"]
    }

    /// Rows in creation order, newest first unless `ascending`; `objectIds` narrows to those ids.
    func list(objectIds: [String]?, ascending: Bool, limit: Int, skip: Int) async throws -> [JSONValue] {
        let order = ascending ? "ASC" : "DESC"
        let result: PostgresResult
        if let objectIds {
            result = try await pool.query("""
                SELECT \(Self.columns) FROM job_status WHERE object_id = ANY($1::text[])
                ORDER BY created_at \(order), object_id LIMIT $2 OFFSET $3
                """, [PostgresArray.literal(objectIds), limit, skip])
        } else {
            result = try await pool.query("""
                SELECT \(Self.columns) FROM job_status ORDER BY created_at \(order), object_id LIMIT $1 OFFSET $2
                """, [limit, skip])
        }
        return result.rows.map(Self.json)
    }

    func count() async throws -> Int {
        try await pool.query("SELECT count(*) AS n FROM job_status").first?.int("n") ?? 0
    }

    static func json(_ row: PostgresRow) -> JSONValue {
        var fields: [String: JSONValue] = [
            "objectId": .string(row["object_id"] ?? ""),
            "jobName": .string(row["job_name"] ?? ""),
            "source": .string(row["source"] ?? "api"),
            "status": .string(row["status"] ?? ""),
            "params": row["params"].flatMap { JSONValue.parse($0) } ?? .object([:]),
        ]
        if let message = row["message"] { fields["message"] = .string(message) }
        if let created = row.date("created_at") { fields["createdAt"] = .string(ParseDate.string(from: created)) }
        if let updated = row.date("updated_at") { fields["updatedAt"] = .string(ParseDate.string(from: updated)) }
        if let finished = row.date("finished_at") {
            fields["finishedAt"] = .object(["__type": .string("Date"), "iso": .string(ParseDate.string(from: finished))])
        }
        return .object(fields)
    }
}
