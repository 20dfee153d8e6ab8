import Contracts
import Foundation
import ParseWire
import Query
import Storage

/// Changes to a `_PushStatus` row as a push runs: `running` once it starts, the adapters' counts as they report
/// (`numSent`, `numFailed`, `sentPerType`, `failedPerType`), and `succeeded` once every published device is reported
/// (by the last report, or by the push sender's last page when the reports came first). A report does not touch the
/// job's row, which the sender holds while it publishes a page: the status row, locked by both, orders the last
/// report and the last page, so one of them always sees the other.
enum PushStatusUpdates {
    static let table = Names.table(PlatformClasses.pushStatus)

    /// For the sender's page transaction, after the page: once the job is published, lock the status row, then (a
    /// statement later, so that a report that held the lock is seen) mark it `succeeded` if every device is reported.
    static func completion(_ statusId: String) -> [PostgresStatement] {
        [PostgresStatement("""
            SELECT 1 FROM \(table) WHERE "objectId" = $1
                AND EXISTS (SELECT 1 FROM push_jobs WHERE push_status_id = $1 AND state = 'published') FOR UPDATE
            """, [statusId]),
         PostgresStatement("""
            UPDATE \(table) AS s SET status = 'succeeded', "updatedAt" = now()
            FROM push_jobs AS j
            WHERE s."objectId" = $1 AND j.push_status_id = $1 AND j.state = 'published' AND s.status <> 'succeeded'
                AND COALESCE(s."numSent", 0) + COALESCE(s."numFailed", 0) >= j.published
            """, [statusId])]
    }

    static func set(_ statusId: String, _ fields: [String: JSONValue], on connection: PostgresConnection) async throws {
        var parameters = SQLParameters()
        var assignments = ["\"updatedAt\" = now()"]
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            let type = PlatformClasses.defaultFields[PlatformClasses.pushStatus]?[name] ?? FieldType(.string)
            assignments.append("\(Names.quoted(name)) = \(try ValueStorage.sql(value, type, &parameters))")
        }
        let id = parameters.bind(statusId)
        _ = try await connection.query("UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \"objectId\" = \(id)",
                                       parameters.values)
    }

    /// Counts an adapter's report once per event id; false when that event was reported before.
    static func record(_ report: ReportPushResults, on connection: PostgresConnection) async throws -> Bool {
        guard UUID(uuidString: report.eventId) != nil else {
            throw ParseError(.invalidJSON, "eventId must be the id of a push.requested.v1 event.")
        }
        let fresh = try await connection.query(
            "INSERT INTO push_reports (event_id, push_status_id) VALUES ($1::uuid, $2) ON CONFLICT DO NOTHING RETURNING event_id",
            [report.eventId, report.pushStatusId])
        guard fresh.first != nil else { return false }
        let current = try await connection.query("""
            SELECT "numSent", "numFailed", "sentPerType"::text AS sent, "failedPerType"::text AS failed,
                "errorMessage"::text AS reasons FROM \(table)
            WHERE "objectId" = $1 FOR UPDATE
            """, [report.pushStatusId]).first
        guard let current else { throw ParseError(.objectNotFound, "No push status \(report.pushStatusId).") }
        var sentPerType = JSONValue.parse(current["sent"] ?? "{}")?.objectValue ?? [:]
        var failedPerType = JSONValue.parse(current["failed"] ?? "{}")?.objectValue ?? [:]
        var failures = JSONValue.parse(current["reasons"] ?? "{}")?.objectValue?["failures"]?.arrayValue ?? []
        var sent = 0, failed = 0
        for outcome in report.outcomes {
            if outcome.transmitted {
                sent += 1
                sentPerType[outcome.deviceType] = .number((sentPerType[outcome.deviceType]?.numberValue ?? 0) + 1)
            } else {
                failed += 1
                failedPerType[outcome.deviceType] = .number((failedPerType[outcome.deviceType]?.numberValue ?? 0) + 1)
                Self.count(reason: outcome.error, in: &failures)
            }
        }
        var fields: [String: JSONValue] = [
            "numSent": .number((current["numSent"].flatMap(Double.init) ?? 0) + Double(sent)),
            "numFailed": .number((current["numFailed"].flatMap(Double.init) ?? 0) + Double(failed)),
        ]
        if !sentPerType.isEmpty { fields["sentPerType"] = .object(sentPerType) }
        if !failedPerType.isEmpty { fields["failedPerType"] = .object(failedPerType) }
        if !failures.isEmpty { fields["errorMessage"] = .object(["failures": .array(failures)]) }
        // Read after the status row is locked: the sender's last page, if it committed first, is seen here.
        let job = try await connection.query("SELECT state, published FROM push_jobs WHERE push_status_id = $1",
                                             [report.pushStatusId]).first
        let reported = (fields["numSent"]?.numberValue ?? 0) + (fields["numFailed"]?.numberValue ?? 0)
        if let job, job["state"] == "published", reported >= Double(job.int("published") ?? 0) {
            fields["status"] = .string("succeeded")
        }
        try await set(report.pushStatusId, fields, on: connection)
        return true
    }

    /// The most distinct reasons `errorMessage` keeps; an adapter's message may name the device, and the row must
    /// not grow with every device that failed.
    static let reasonLimit = 20

    /// Counts one failed device under its adapter's reason in `errorMessage` (parse-server's field for why a push
    /// failed, an object), as `{"failures":[{"reason":..., "count":...}]}`: a list, as a reason is free text and
    /// may hold characters an object's key may not (`.`, `$`).
    static func count(reason: String?, in failures: inout [JSONValue]) {
        var text = String((reason.flatMap { $0.isEmpty ? nil : $0 } ?? "no reason given").prefix(200))
        func position(of text: String) -> Int? { failures.firstIndex { $0.objectValue?["reason"]?.stringValue == text } }
        if position(of: text) == nil && failures.count >= reasonLimit { text = "other reasons" }
        if let index = position(of: text) {
            let count = failures[index].objectValue?["count"]?.numberValue ?? 0
            failures[index] = .object(["reason": .string(text), "count": .number(count + 1)])
        } else {
            failures.append(.object(["reason": .string(text), "count": .number(1)]))
        }
    }
}
