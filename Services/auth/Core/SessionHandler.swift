import Contracts
import Foundation
import ParseWire
import Storage

/// `/sessions`: a caller sees and changes only their own sessions; the master key sees all. Tokens are stored
/// as digests, so a session's token appears only in the answers to the request that presented it.
struct SessionHandler: Sendable {
    let pool: PostgresPool
    let sessions: SessionStore

    private static let notFound = ParseError(.objectNotFound, "Object not found.")

    func me(_ request: AuthRequest) async throws -> RESTResponse {
        guard let token = request.identity.sessionToken else {
            throw ParseError(.invalidSessionToken, "Session token required.")
        }
        guard let session = try await sessions.find(token: token, pool: pool) else {
            throw ParseError(.invalidSessionToken, "Session token not found.")
        }
        return AuthResponses.ok(session.json(sessionToken: token))
    }

    func get(_ request: AuthRequest, id: String) async throws -> RESTResponse {
        let session = try await visibleSession(request, id: id, notFound: Self.notFound)
        return AuthResponses.ok(session.json(sessionToken: tokenIfOwn(request, session)))
    }

    func find(_ request: AuthRequest) async throws -> RESTResponse {
        let options = try QueryOptions(request)
        var sql = SQLParameters()
        var conditions: [String] = []
        if !request.groups.isMaster {
            guard let userId = request.identity.userId else { throw ParseError(.invalidSessionToken, "Invalid session token") }
            conditions.append("user_id = \(sql.bind(userId))")
        }
        for (key, value) in options.constraints.sorted(by: { $0.key < $1.key }) {
            let operand = try QueryOptions.equalityValue(value)
            switch key {
            case "objectId": conditions.append("id = \(sql.bind(operand.stringValue ?? "\u{0}"))")
            case "user": conditions.append("user_id = \(sql.bind(operand["objectId"]?.stringValue ?? "\u{0}"))")
            case "installationId": conditions.append("installation_id = \(sql.bind(operand.stringValue ?? "\u{0}"))")
            case "sessionToken":
                conditions.append("token_digest = \(sql.bind(SessionTokenDigest.digest(of: operand.stringValue ?? "")))")
            default:
                guard FieldName.isValid(key) else { throw ParseError(.invalidKeyName, "Invalid key name: \(key)") }
                conditions.append("fields @> \(sql.bind(JSONValue.object([key: operand]).jsonText))::jsonb")
            }
        }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        var answer: [String: JSONValue] = [:]
        let rows = options.limit == 0 ? [] : try await pool.query(
            "SELECT \(SessionStore.SessionRecord.columns) FROM sessions \(whereClause) ORDER BY created_at, id LIMIT \(options.limit) OFFSET \(options.skip)",
            sql.values).rows
        answer["results"] = .array(rows.map { row in
            let session = SessionStore.SessionRecord(row)
            return .object(session.json(sessionToken: tokenIfOwn(request, session)))
        })
        if options.count {
            let total = try await pool.query("SELECT count(*) AS total FROM sessions \(whereClause)", sql.values).first?.int("total") ?? 0
            answer["count"] = .number(Double(total))
        }
        return AuthResponses.ok(answer)
    }

    /// `POST /sessions`: a new session for the caller (or, with the master key, for the user in the body).
    func create(_ request: AuthRequest) async throws -> RESTResponse {
        try request.requireWritable("create")
        var body = try request.body()
        let userId: String
        if request.isMaster, let pointer = body["user"]?["objectId"]?.stringValue {
            userId = pointer
        } else if let caller = request.identity.userId {
            userId = caller
        } else {
            throw ParseError(.invalidSessionToken, "Session token required.")
        }
        body["user"] = nil
        let installationId = body.removeValue(forKey: "installationId")?.stringValue
        for key in ["sessionToken", "expiresAt", "createdWith", "ACL", "objectId", "createdAt", "updatedAt"] { body[key] = nil }
        for key in body.keys { try FieldName.check(key) }
        guard try await UserStore(pool: pool).find(id: userId) != nil else {
            throw ParseError(.objectNotFound, "Object not found.")
        }
        let sessions = self.sessions
        let extra = body
        let session = try await pool.transaction { connection in
            try await sessions.create(userId: userId, action: "create", authProvider: nil,
                                      installationId: installationId, fields: extra, on: connection)
        }
        var answer = extra
        answer["objectId"] = .string(session.id)
        answer["sessionToken"] = .string(session.token)
        answer["user"] = AuthResponses.pointer("_User", userId)
        answer["createdWith"] = .object(["action": .string("create")])
        answer["expiresAt"] = AuthResponses.typedDate(session.expiresAt)
        answer["createdAt"] = AuthResponses.date(session.createdAt)
        if let installationId { answer["installationId"] = .string(installationId) }
        return AuthResponses.created(answer, location: "\(request.serverURL)/sessions/\(session.id)")
    }

    func update(_ request: AuthRequest, id: String) async throws -> RESTResponse {
        try request.requireWritable("update")
        let body = try request.body()
        let session = try await visibleSession(request, id: id, notFound: Self.notFound)
        var set: [String: JSONValue] = [:]
        for (key, value) in body {
            switch key {
            case "ACL": throw ParseError(.invalidKeyName, "Cannot set ACL on a Session.")
            case "user" where value["objectId"]?.stringValue == session.userId: continue
            case "user", "installationId", "sessionToken", "expiresAt", "createdWith", "objectId":
                throw ParseError(.invalidKeyName, "")
            case "createdAt", "updatedAt": continue
            default:
                try FieldName.check(key)
                set[key] = value
            }
        }
        let now = Date.nowMillis
        _ = try await pool.query("UPDATE sessions SET fields = fields || $2::jsonb, updated_at = $3 WHERE id = $1",
                                 [id, JSONValue.object(set).jsonText, now])
        return AuthResponses.ok(["updatedAt": AuthResponses.date(now)])
    }

    func delete(_ request: AuthRequest, id: String) async throws -> RESTResponse {
        try request.requireWritable("delete")
        _ = try await visibleSession(request, id: id, notFound: ParseError(.objectNotFound, "Object not found for delete."))
        let sessions = self.sessions
        _ = try await pool.transaction { connection in
            try await sessions.revoke(where: "id = $1", [id], reason: "deleted", on: connection)
        }
        return AuthResponses.empty
    }

    private func visibleSession(_ request: AuthRequest, id: String, notFound: ParseError) async throws -> SessionStore.SessionRecord {
        if !request.isMaster && !request.identity.isReadOnlyMaster && request.identity.userId == nil {
            throw ParseError(.invalidSessionToken, "Invalid session token")
        }
        guard let row = try await pool.query("SELECT \(SessionStore.SessionRecord.columns) FROM sessions WHERE id = $1", [id]).first else {
            throw notFound
        }
        let session = SessionStore.SessionRecord(row)
        guard request.groups.isMaster || session.userId == request.identity.userId else { throw notFound }
        return session
    }

    private func tokenIfOwn(_ request: AuthRequest, _ session: SessionStore.SessionRecord) -> String? {
        guard let token = request.identity.sessionToken,
              SessionTokenDigest.constantTimeEqual(SessionTokenDigest.digest(of: token), session.tokenDigest) else { return nil }
        return token
    }
}
