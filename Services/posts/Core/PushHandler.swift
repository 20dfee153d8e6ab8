import Contracts
import Foundation
import ParseWire
import Query
import Storage

/// `POST /push` (master key): checks the body and its `where`, records the `_PushStatus` row (`pending`, or
/// `scheduled` for a `push_time`) and the push job in one transaction, and answers `{"result":true}` with the
/// `X-Parse-Push-Status-Id` header. `PushSender` then publishes the matching installations when the push is due.
struct PushHandler {
    let context: RequestContext

    func handle(_ request: RESTRequest, on connection: PostgresConnection) async throws -> RESTResponse {
        guard request.method == "POST" else {
            throw ParseError(.commandUnavailable, "Cannot \(request.method) /push: no such route.")
        }
        let identity = context.identity
        if identity.isReadOnlyMaster && !identity.isMaster {
            throw ParseError(.operationForbidden, "read-only masterKey isn't allowed to send push notifications.")
        }
        guard identity.isMaster else { return SchemasHandler.masterKeyRequired }
        let now = ObjectWriter.now()
        let push = try PushRequest(RequestBody.object(request.body), now: now)
        let context = self.context
        let statusId = try await connection.transaction { connection in
            try await PushJobs.checkWhere(push.whereClause, context: context, on: connection)
            let payload = JSONValue.object(push.data).compactText
            let alert = push.data["alert"]
            let hashed = alert?.stringValue ?? (alert?.objectValue != nil ? alert?.compactText : nil)
            var pushHash = "d41d8cd98f00b204e9800998ecf8427e"   // md5 of nothing: parse-server's hash of a push without alert
            if let hashed {
                pushHash = try await connection.query("SELECT md5($1) AS hash", [hashed]).first?["hash"] ?? pushHash
            }
            var status: [String: JSONValue] = [
                "pushTime": .string(push.pushTimeText(now: now)), "query": .string(JSONValue.object(push.whereClause).compactText),
                "payload": .string(payload), "source": .string("rest"),
                "status": .string(push.pushTime == nil ? "pending" : "scheduled"),
                "numSent": .number(0), "numFailed": .number(0),
                "pushHash": .string(pushHash), "ACL": .object([:]),
            ]
            if let expiry = push.expirationTime { status["expiry"] = .number(expiry) }
            if let interval = push.expirationInterval { status["expiration_interval"] = .number(interval) }
            var master = context
            master.identity = .master
            let created = try await ObjectWriter(context: master, connection: connection).create(PlatformClasses.pushStatus, body: status)
            try await PushJobs.add(statusId: created.objectId, push: push, dueAt: push.firstDue(now: now), on: connection)
            if let audienceId = push.audienceId { try await AudienceAnswers.markUsed(audienceId, on: connection) }
            return created.objectId
        }
        return PostsHandler.json(200, .object(["result": .bool(true)]), headers: ["X-Parse-Push-Status-Id": statusId])
    }
}
