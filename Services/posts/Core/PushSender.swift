import Contracts
import Foundation
import ParseWire
import Query
import Runtime
import ServiceKit
import Storage

/// The background job that sends due pushes: it takes a due job under its row lock (replicas skip locked ones),
/// publishes the next page of matching installations as `push.requested.v1` events through the outbox, applies
/// the push's badge change to them, and moves the cursor, all in one transaction per page. Pushes whose
/// `push_time` is in the future wait in `push_jobs`, so they go out when due, also after a restart.
final class PushSender: Sendable {
    private let pool: PostgresPool
    private let logger: Logger
    private let idlePause: Duration

    init(pool: PostgresPool, logger: Logger, idlePause: Duration = .milliseconds(250)) {
        self.pool = pool
        self.logger = logger
        self.idlePause = idlePause
    }

    func run() async {
        while !Task.isCancelled {
            do {
                if try await sendNextPage() { continue }
            } catch {
                logger.warning("push sending failed; retrying", ["error": "\(error)"])
            }
            try? await Task.sleep(for: idlePause)
        }
    }

    /// Publishes one page of one due push; false when no push is due.
    func sendNextPage() async throws -> Bool {
        try await pool.withConnection { connection in
            try await connection.transaction { connection in
                let claimed = try await connection.query("""
                    SELECT push_status_id, state, request::text AS request, cursor, published, reported FROM push_jobs
                    WHERE state <> 'published' AND due_at <= now() ORDER BY due_at LIMIT 1 FOR UPDATE SKIP LOCKED
                    """)
                guard let job = claimed.first, let statusId = job["push_status_id"],
                      let request = JSONValue.parse(job["request"] ?? "")?.objectValue else { return false }
                let whereClause = request["where"]?.objectValue ?? [:]
                _ = try await connection.query(PushPage.walkThePrimaryKey)
                let page = try await PushPage.read(whereClause, after: job["cursor"], on: connection)
                let devices = try await Self.applyBadge(request, to: page, on: connection)
                try await Self.publish(devices, statusId: statusId, request: request, on: connection)
                let published = (job.int("published") ?? 0) + devices.count
                let done = page.isEmpty
                if job["state"] == "waiting" && !done {
                    try await PushStatusUpdates.set(statusId, ["status": .string("running")], on: connection)
                }
                _ = try await connection.query("""
                    UPDATE push_jobs SET state = $2, cursor = $3, published = $4 WHERE push_status_id = $1
                    """, [statusId, done ? "published" : "publishing", page.last?.objectId ?? job["cursor"],
                          published])
                if done { try await PushStatusUpdates.completeIfReported(statusId, on: connection) }
                return true
            }
        }
    }

    /// parse-server changes the badges of the installations a push reaches before sending it; each device then
    /// carries its own new badge.
    private static func applyBadge(_ request: [String: JSONValue], to devices: [PushRequested.Device],
                                   on connection: PostgresConnection) async throws -> [PushRequested.Device] {
        guard !devices.isEmpty else { return devices }
        let expression: String
        var parameters = SQLParameters()
        if let amount = request["badgeIncrement"]?.numberValue {
            expression = "COALESCE(badge, 0) + \(parameters.bind(amount))::double precision"
        } else if let value = request["badgeSet"]?.numberValue {
            expression = "\(parameters.bind(value))::double precision"
        } else {
            return devices
        }
        let ids = parameters.bindTextArray(devices.map(\.objectId))
        let result = try await connection.query("""
            UPDATE \(Names.table(PlatformClasses.installation)) SET badge = \(expression), "updatedAt" = now()
            WHERE "objectId" = ANY(\(ids)) RETURNING "objectId", badge
            """, parameters.values)
        var badges: [String: Double] = [:]
        for row in result.rows { if let id = row["objectId"], let badge = row["badge"].flatMap(Double.init) { badges[id] = badge } }
        return devices.map { device in
            var device = device
            device.badge = badges[device.objectId] ?? device.badge
            return device
        }
    }

    private static func publish(_ devices: [PushRequested.Device], statusId: String, request: [String: JSONValue],
                                on connection: PostgresConnection) async throws {
        let byType = Dictionary(grouping: devices, by: \.deviceType)
        for (deviceType, group) in byType.sorted(by: { $0.key < $1.key }) {
            for start in stride(from: 0, to: group.count, by: PushJobs.devicesPerEvent) {
                let batch = Array(group[start..<min(start + PushJobs.devicesPerEvent, group.count)])
                let id = RandomUUID.string()
                let json = PushPage.eventJSON(id: id, statusId: statusId, data: request["data"] ?? .object([:]),
                                              expirationTime: request["expirationTime"]?.stringValue, devices: batch)
                try await Outbox.add(json: json, id: id, routingKey: "push.requested.\(PushTopics.routingWord(deviceType))",
                                     on: connection)
            }
        }
    }
}

enum PushTopics {
    /// A device type as one word of a routing key: anything but letters, digits, `_` and `-` becomes `_`.
    static func routingWord(_ deviceType: String) -> String {
        String(deviceType.unicodeScalars.map { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "_" || scalar == "-") ? Character(scalar) : "_"
        })
    }
}
