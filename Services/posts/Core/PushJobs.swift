import Contracts
import Foundation
import ParseWire
import Query
import Runtime
import ServiceKit
import Storage

/// The `push_jobs` table: one row per push, from `POST /push` until every matching installation is published and
/// reported. `state` is `waiting` (not started), `publishing` (`cursor` is the last installation published) or
/// `published`; `published` counts the devices published. (`reported` is not kept any more: the adapters' reports
/// add up in `_PushStatus`, `numSent` plus `numFailed`.) A job is worked on under its row lock, one page of
/// installations per transaction, so a crash at any point resumes after the last page committed and publishes no
/// device twice.
enum PushJobs {
    /// Installations read per transaction, and devices per `push.requested.v1` event.
    static let pageSize = 1_000
    static let devicesPerEvent = 500
    static let deliveredFields = ["objectId", "deviceToken", "deviceType", "installationId", "badge", "localeIdentifier", "timeZone"]

    static func add(statusId: String, push: PushRequest, dueAt: Date, on connection: PostgresConnection) async throws {
        var request: [String: JSONValue] = ["where": .object(push.whereClause), "data": .object(push.data)]
        if let expiration = push.expirationDate { request["expirationTime"] = .string(expiration) }
        // A time without a zone is each device's local time (`PushPage`: devices are sent to as their zone reaches it).
        if push.localTime, let time = push.pushTime { request["localTime"] = .string(String(ParseDate.string(from: time).dropLast())) }
        switch push.badge {
        case .increment(let amount)?: request["badgeIncrement"] = .number(amount)
        case .set(let value)?: request["badgeSet"] = .number(value)
        case nil: break
        }
        _ = try await connection.query(
            "INSERT INTO push_jobs (push_status_id, due_at, state, request) VALUES ($1, $2::timestamptz, 'waiting', $3::jsonb)",
            [statusId, dueAt, JSONValue.object(request).compactText])
    }

    /// Translates `where` over `_Installation` without running it, so a malformed one is refused before anything
    /// is stored.
    static func checkWhere(_ whereClause: [String: JSONValue], context: RequestContext, on connection: PostgresConnection) async throws {
        let className = PlatformClasses.installation
        let schema = try await SchemaStore.load(className, on: connection)
            ?? ClassSchema(className: className, fields: PlatformClasses.defaultFields[className] ?? [:])
        var master = context
        master.identity = .master
        _ = try await ObjectReader(context: master, connection: connection)
            .prepareFind(schema, options: try options(whereClause, after: nil))
    }

    /// A page of the push's installations: those with a device token, in objectId order, after `cursor`.
    static func options(_ whereClause: [String: JSONValue], after cursor: String?) throws(ParseError) -> QueryOptions {
        var clauses: [JSONValue] = [.object(whereClause), .object(["deviceToken": .object(["$exists": .bool(true)])])]
        if let cursor { clauses.append(.object(["objectId": .object(["$gt": .string(cursor)])])) }
        return try QueryOptions(find: [
            "where": .object(["$and": .array(clauses)]), "order": .string("objectId"),
            "limit": .number(Double(pageSize)), "keys": .string(deliveredFields.joined(separator: ",")),
        ])
    }
}
