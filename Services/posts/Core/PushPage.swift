import Contracts
import Foundation
import ParseWire
import Query
import Storage

/// The statement that sends one page of a push, compiled once per push and run for each page: in one statement and
/// one round trip it locks the job, reads the next `PushJobs.pageSize` matching installations after the cursor,
/// applies the badge change to them (`UPDATE ... RETURNING`, only when the push changes badges), writes their
/// `push.requested.v1` events of at most `PushJobs.devicesPerEvent` devices of one device type to the outbox, moves
/// the cursor and, on the first page, sets `_PushStatus` to `running`. The events are written as JSON text by PostgreSQL and cast to `jsonb` once, so no device row
/// travels to posts and back, and posts does no work per device.
struct PushPage: Sendable {
    static let table = Names.table(PlatformClasses.installation)

    /// For the page's transaction: walk the primary key from the cursor. The planner rates a `where` such as
    /// `channels $in` as very selective, so it would scan and sort the whole class for every page (270 ms a page at
    /// 100k installations, instead of 1 ms); at that cost it would also compile the statement (JIT) and start a
    /// parallel worker for it.
    static let walkThePrimaryKey = PostgresStatement("""
        SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
            set_config('enable_sort', 'off', true), set_config('jit', 'off', true),
            set_config('max_parallel_workers_per_gather', '0', true)
        """)

    /// What one run of the statement did.
    struct Outcome: Equatable, Sendable {
        /// False when the job was locked by another sender, or published already: nothing was done.
        var claimed: Bool
        /// The installations read (0: the push has been published to every matching installation).
        var read: Int
    }

    let statusId: String
    let sql: String
    /// Every parameter but the last, the event time, which changes from page to page.
    let parameters: [String?]

    /// The page statement with the event time of now.
    func statement(now: Date = Date()) -> PostgresStatement {
        var statement = PostgresStatement(sql)
        statement.parameters = parameters + [ParseDate.string(from: now)]
        return statement
    }

    static func outcome(_ result: PostgresResult) -> Outcome {
        let row = result.first
        return Outcome(claimed: row?["claimed"] == "t", read: row?.int("read") ?? 0)
    }

    /// Compiles the page statement of the push `statusId` whose job holds `request` (see `PushJobs.add`).
    static func compile(statusId: String, request: [String: JSONValue], on connection: PostgresConnection) async throws -> PushPage {
        var parameters = SQLParameters()
        var deviceRows: String
        var badgeChange: String?
        // For a push at each device's local time: the devices not due yet (`LocalTimeWaves`).
        var later: String?
        if let schema = try await SchemaStore.load(PlatformClasses.installation, on: connection),
           schema.fields["deviceToken"] != nil, schema.fields["deviceType"] != nil {
            let mapping = ClassFieldMapping(schema: schema, identity: .master) { name in
                try await SchemaStore.load(name, on: connection)
            }
            let translator = WhereTranslator()
            let whereClause = request["where"]?.objectValue ?? [:]
            let condition = try await translator.translate(
                ["$and": .array([.object(whereClause), .object(["deviceToken": .object(["$exists": .bool(true)])])])],
                mapping, alias: "t0")
            parameters = translator.parameters
            if schema.fields["badge"] != nil {
                if let amount = request["badgeIncrement"]?.numberValue {
                    badgeChange = "COALESCE(t.badge, 0) + \(parameters.bind(amount))::double precision"
                } else if let value = request["badgeSet"]?.numberValue {
                    badgeChange = "\(parameters.bind(value))::double precision"
                }
            }
            var columns = badgeChange == nil ? deliveredColumns(schema, alias: "t0") : #"t0."objectId""#
            if let localTime = request["localTime"]?.stringValue {
                let due = LocalTimeWaves.due(localTime: parameters.bind(localTime), schema: schema, alias: "t0")
                columns += ", \(due) AS __due"
                deviceRows = """
                    SELECT \(columns) FROM \(table) AS t0
                    WHERE \(condition) AND \(due) <= now() AND (\(due), t0."objectId") > \(LocalTimeWaves.cursor)
                    ORDER BY \(due), t0."objectId" LIMIT \(PushJobs.pageSize)
                    """
                later = """
                    , later AS (SELECT min(\(due)) AS due FROM \(table) AS t0 WHERE \(condition) AND \(due) > now())
                    """
            } else {
                deviceRows = """
                    SELECT \(columns) FROM \(table) AS t0
                    WHERE \(condition) AND t0."objectId" > (SELECT cursor FROM job)
                    ORDER BY t0."objectId" LIMIT \(PushJobs.pageSize)
                    """
            }
            if let badgeChange {
                deviceRows += """
                    ), devices AS (
                    UPDATE \(table) AS t SET badge = \(badgeChange), "updatedAt" = now()
                    WHERE t."objectId" IN (SELECT "objectId" FROM page) AND t."deviceType" IS NOT NULL AND t."deviceToken" IS NOT NULL
                    RETURNING \(deliveredColumns(schema, alias: "t"))
                    """
            }
        } else {
            // No installation can be reached: the first page is empty and the push is done.
            deviceRows = "SELECT " + PushJobs.deliveredFields.map { "NULL::text AS \(Names.quoted($0))" }.joined(separator: ", ")
                + " WHERE false"
        }
        if badgeChange == nil {
            deviceRows += #"), devices AS (SELECT * FROM page WHERE "deviceType" IS NOT NULL AND "deviceToken" IS NOT NULL"#
        }
        let status = parameters.bind(statusId)
        let data = parameters.bind((request["data"] ?? .object([:])).compactText)
        var payloadData = #"'{"pushStatusId":' || to_json(\#(status)::text)::text || ',"data":' || \#(data)::text"#
        if let expiration = request["expirationTime"]?.stringValue {
            payloadData += #" || ',"expirationTime":' || to_json(\#(parameters.bind(expiration))::text)::text"#
        }
        let time = "$\(parameters.values.count + 1)"
        let sql = """
            WITH job AS (
                SELECT state, COALESCE(cursor, '') AS cursor FROM push_jobs
                WHERE push_status_id = \(status) AND state <> 'published' FOR UPDATE SKIP LOCKED
            )\(later == nil ? "" : ", zones AS (SELECT name FROM pg_timezone_names)"), page AS (
                \(deviceRows)
            )\(later ?? ""), batches AS (
                SELECT "deviceType" AS type,
                    (row_number() OVER (PARTITION BY "deviceType" ORDER BY "objectId") - 1) / \(PushJobs.devicesPerEvent) AS batch,
                    \(deviceJSON) AS device
                FROM devices
            ), events AS (
                SELECT type, batch, gen_random_uuid() AS id, string_agg(device, ',') AS devices
                FROM batches GROUP BY type, batch
            ), added AS (
                INSERT INTO outbox (event_id, routing_key, payload)
                SELECT id, 'push.requested.' || regexp_replace(type, '[^A-Za-z0-9_-]', '_', 'g'),
                    ('{"specversion":"1.0","id":"' || id::text || '","source":"posts","type":"\(PushRequested.type)","time":'
                        || to_json(\(time)::text)::text || ',"subject":' || to_json('_PushStatus/' || \(status)::text)::text
                        || ',"datacontenttype":"application/json","data":' || \(payloadData)
                        || ',"devices":[' || devices || ']}}')::jsonb
                FROM (SELECT * FROM events ORDER BY type, batch) AS ordered
                RETURNING 1
            ), moved AS (
                \(later == nil ? Self.movedByObjectId : LocalTimeWaves.moved)
                    published = published + (SELECT count(*) FROM devices)
                WHERE push_status_id = \(status) AND EXISTS (SELECT 1 FROM job)
                RETURNING 1
            ), running AS (
                UPDATE \(PushStatusUpdates.table) SET status = 'running', "updatedAt" = now()
                WHERE "objectId" = \(status) AND (SELECT state FROM job) = 'waiting' AND (SELECT count(*) FROM page) > 0
                RETURNING 1
            )
            SELECT EXISTS (SELECT 1 FROM job) AS claimed, (SELECT count(*) FROM page) AS read,
                (SELECT count(*) FROM added) AS events, (SELECT count(*) FROM running) AS started
            """
        return PushPage(statusId: statusId, sql: sql, parameters: parameters.values.map { $0?.postgresText })
    }

    /// The job after a page walked in objectId order: the cursor at the last installation read, published once a
    /// page reads none.
    static let movedByObjectId = """
        UPDATE push_jobs SET state = CASE WHEN (SELECT count(*) FROM page) = 0 THEN 'published' ELSE 'publishing' END,
            cursor = COALESCE((SELECT max("objectId") FROM page), cursor),
        """

    /// The columns an event carries per device, `NULL` for a field the class does not have.
    private static func deliveredColumns(_ schema: ClassSchema, alias: String) -> String {
        PushJobs.deliveredFields.map { name in
            name == "objectId" || schema.fields[name] != nil ? "\(alias).\(Names.quoted(name))" : "NULL::text AS \(Names.quoted(name))"
        }.joined(separator: ", ")
    }

    /// One device of `PushRequested.devices` as JSON text, without the fields the installation does not have.
    private static var deviceJSON: String {
        let required = ["objectId", "deviceToken", "deviceType"]
        let optional = PushJobs.deliveredFields.filter { !required.contains($0) }
        let first = required.enumerated().map { index, name in
            "'\(index == 0 ? "{" : ",")\"\(name)\":' || to_json(\(Names.quoted(name)))::text"
        }
        let rest = optional.map { name in "COALESCE(',\"\(name)\":' || to_json(\(Names.quoted(name)))::text, '')" }
        return (first + rest + ["'}'"]).joined(separator: " || ")
    }
}
