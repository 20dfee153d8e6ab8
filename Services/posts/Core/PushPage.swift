import Contracts
import Foundation
import ParseWire
import Query
import Storage

/// One page of a push's installations, read and turned into events with as little work per device as the
/// fan-out allows: the `where` translated once into one statement that reads only the delivered columns, and
/// each event's JSON written directly (`JSONValue.compactText`) rather than through Foundation's encoder.
enum PushPage {
    static let table = Names.table(PlatformClasses.installation)

    /// For the page's transaction: walk the primary key from the cursor. The planner rates a `where` such as
    /// `channels $in` as very selective, so it would scan and sort the whole class for every page (270 ms a page at
    /// 100k installations, instead of 1 ms); at that cost it would also compile the statement (JIT) and start a
    /// parallel worker for it.
    static let walkThePrimaryKey = """
        SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
            set_config('enable_sort', 'off', true), set_config('jit', 'off', true),
            set_config('max_parallel_workers_per_gather', '0', true)
        """

    /// The next `PushJobs.pageSize` installations with a device token that match `whereClause`, after `cursor`.
    static func read(_ whereClause: [String: JSONValue], after cursor: String?,
                     on connection: PostgresConnection) async throws -> [PushRequested.Device] {
        guard let schema = try await SchemaStore.load(PlatformClasses.installation, on: connection),
              schema.fields["deviceToken"] != nil, schema.fields["deviceType"] != nil else { return [] }
        let mapping = ClassFieldMapping(schema: schema, identity: .master) { name in
            try await SchemaStore.load(name, on: connection)
        }
        let translator = WhereTranslator()
        var clauses: [JSONValue] = [.object(whereClause), .object(["deviceToken": .object(["$exists": .bool(true)])])]
        if let cursor { clauses.append(.object(["objectId": .object(["$gt": .string(cursor)])])) }
        let condition = try await translator.translate(["$and": .array(clauses)], mapping, alias: "t0")
        let columns = PushJobs.deliveredFields.map { name in
            name == "objectId" || schema.fields[name] != nil ? "t0.\(Names.quoted(name))" : "NULL AS \(Names.quoted(name))"
        }
        let result = try await connection.query("""
            SELECT \(columns.joined(separator: ", ")) FROM \(table) AS t0 WHERE \(condition)
            ORDER BY t0."objectId" LIMIT \(PushJobs.pageSize)
            """, translator.parameters.values)
        return result.rows.compactMap { row in
            guard let objectId = row["objectId"], let token = row["deviceToken"], let type = row["deviceType"] else { return nil }
            return PushRequested.Device(objectId: objectId, deviceToken: token, deviceType: type,
                                        installationId: row["installationId"], badge: row["badge"].flatMap(Double.init),
                                        localeIdentifier: row["localeIdentifier"], timeZone: row["timeZone"])
        }
    }

    /// A `push.requested.v1` CloudEvent as JSON text, in the shape `CloudEvent<PushRequested>` decodes.
    static func eventJSON(id: String, statusId: String, data: JSONValue, expirationTime: String?,
                          devices: [PushRequested.Device]) -> String {
        var payload: [String: JSONValue] = [
            "pushStatusId": .string(statusId), "data": data, "devices": .array(devices.map(json)),
        ]
        if let expirationTime { payload["expirationTime"] = .string(expirationTime) }
        return JSONValue.object([
            "specversion": .string("1.0"), "id": .string(id), "source": .string("posts"), "type": .string(PushRequested.type),
            "time": .string(ParseDate.string(from: Date())), "subject": .string("_PushStatus/\(statusId)"),
            "datacontenttype": .string("application/json"), "data": .object(payload),
        ]).compactText
    }

    private static func json(_ device: PushRequested.Device) -> JSONValue {
        var fields: [String: JSONValue] = [
            "objectId": .string(device.objectId), "deviceToken": .string(device.deviceToken),
            "deviceType": .string(device.deviceType),
        ]
        if let value = device.installationId { fields["installationId"] = .string(value) }
        if let value = device.badge { fields["badge"] = .number(value) }
        if let value = device.localeIdentifier { fields["localeIdentifier"] = .string(value) }
        if let value = device.timeZone { fields["timeZone"] = .string(value) }
        return .object(fields)
    }
}
