import Foundation
import ParseWire
import Storage

/// `_JobSchedule` rows in cloud's table `job_schedules`, and the claim of a due one: under its row lock, skipped by
/// other replicas, its `lastRun` moves to the time it was due before the job starts, so each due time starts once.
struct JobScheduleStore: Sendable {
    let pool: PostgresPool

    private static let columns = """
        object_id, job_name, description, params, start_after, days_of_week::text AS days, time_of_day, last_run,
        repeat_minutes, created_at, updated_at
        """

    func list() async throws -> [JSONValue] {
        try await pool.query("SELECT \(Self.columns) FROM job_schedules ORDER BY created_at, object_id").rows.map(Self.json)
    }

    func jobNames() async throws -> [String] {
        try await pool.query("SELECT DISTINCT job_name FROM job_schedules ORDER BY job_name").rows.compactMap { $0["job_name"] }
    }

    /// The new row's `objectId` and `createdAt`.
    func create(_ schedule: JobSchedule) async throws -> (objectId: String, createdAt: String) {
        let row = try await pool.query("""
            INSERT INTO job_schedules (object_id, job_name, description, params, start_after, days_of_week, time_of_day,
                repeat_minutes) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8::double precision) RETURNING created_at
            """, Self.values(schedule)).first
        return (schedule.objectId, ParseDate.string(from: row?.date("created_at") ?? Date()))
    }

    /// The schedule replaced but for its `lastRun`; nil when there is no such schedule.
    func update(_ schedule: JobSchedule) async throws -> String? {
        let row = try await pool.query("""
            UPDATE job_schedules SET job_name = $2, description = $3, params = $4, start_after = $5,
                days_of_week = $6::jsonb, time_of_day = $7, repeat_minutes = $8::double precision, updated_at = now()
            WHERE object_id = $1 RETURNING updated_at
            """, Self.values(schedule)).first
        return row.map { ParseDate.string(from: $0.date("updated_at") ?? Date()) }
    }

    func delete(_ objectId: String) async throws -> Bool {
        try await pool.query("DELETE FROM job_schedules WHERE object_id = $1 RETURNING object_id", [objectId]).first != nil
    }

    /// Claims every schedule due at `now`, recording the time each was due as its `lastRun`.
    func claimDue(now: Date) async throws -> [JobSchedule] {
        try await pool.transaction { connection in
            let rows = try await connection.query("SELECT \(Self.columns) FROM job_schedules FOR UPDATE SKIP LOCKED")
            var due: [JobSchedule] = []
            for row in rows.rows {
                guard var schedule = Self.schedule(row), let time = schedule.due(at: now) else { continue }
                schedule.lastRun = (time.timeIntervalSince1970 * 1000).rounded()
                _ = try await connection.query("UPDATE job_schedules SET last_run = $2 WHERE object_id = $1",
                                               [schedule.objectId, schedule.lastRun ?? 0])
                due.append(schedule)
            }
            return due
        }
    }

    private static func values(_ schedule: JobSchedule) -> [(any PostgresBindable)?] {
        let json = schedule.json
        return [schedule.objectId, schedule.jobName, schedule.description, schedule.params,
                json["startAfter"]?.stringValue, json["daysOfWeek"].map { JSONText.encode($0) },
                json["timeOfDay"]?.stringValue, schedule.repeatMinutes]
    }

    private static func schedule(_ row: PostgresRow) -> JobSchedule? {
        guard let objectId = row["object_id"], let jobName = row["job_name"],
              let startAfter = row["start_after"].flatMap(ISODate.parse) else { return nil }
        return JobSchedule(
            objectId: objectId, jobName: jobName, description: row["description"], params: row["params"],
            startAfter: startAfter,
            daysOfWeek: row["days"].flatMap { JSONValue.parse($0)?.arrayValue?.compactMap { $0.numberValue.map { Int($0) } } },
            timeOfDay: row["time_of_day"].flatMap(JobSchedule.secondsOfDay), repeatMinutes: row.double("repeat_minutes"),
            lastRun: row.double("last_run"))
    }

    private static func json(_ row: PostgresRow) -> JSONValue {
        guard let schedule = schedule(row) else { return .object(["objectId": .string(row["object_id"] ?? "")]) }
        var fields = schedule.json
        if let created = row.date("created_at") { fields["createdAt"] = .string(ParseDate.string(from: created)) }
        if let updated = row.date("updated_at") { fields["updatedAt"] = .string(ParseDate.string(from: updated)) }
        return .object(fields)
    }
}
