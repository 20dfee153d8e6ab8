import Contracts
import Foundation
import ParseWire
import Query
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
        guard let session = try await sessions.find(token: token, in: pool) else {
            throw ParseError(.invalidSessionToken, "Session token not found.")
        }
        return AuthResponses.ok(session.json(sessionToken: token))
    }

    func get(_ request: AuthRequest, id: String) async throws -> RESTResponse {
        let session = try await visibleSession(request, id: id, notFound: Self.notFound)
        return AuthResponses.ok(session.json(sessionToken: tokenIfOwn(request, session)))
    }

    /// `GET /sessions`: the caller's own sessions (every session for the master key). `sessionToken` is
    /// queryable by equality: its digest is compared.
    func find(_ request: AuthRequest) async throws -> RESTResponse {
        var options = try TableQuery.options(request)
        let isMaster = request.groups.isMaster
        let userId = request.identity.userId
        if !isMaster && userId == nil { throw ParseError(.invalidSessionToken, "Invalid session token") }
        var tokenDigest: [UInt8]?
        if let wanted = options.whereClause.removeValue(forKey: "sessionToken") {
            guard let token = wanted.stringValue ?? wanted["$eq"]?.stringValue, wanted.objectValue.map({ $0.count == 1 }) ?? true else {
                throw ParseError(.invalidQuery, "sessionToken can only be queried for equality, at the top level of the query.")
            }
            tokenDigest = SessionTokenDigest.digest(of: token)
        }
        let query = TableQuery(table: "sessions", columns: SessionStore.SessionRecord.columns, mapping: SessionFieldMapping(foreign: request.foreign),
                               options: options)
        let (rows, count) = try await query.run(on: pool) { translator in
            var conditions: [String] = []
            if !isMaster, let userId { conditions.append("t0.user_id = \(translator.bind(userId))") }
            if let tokenDigest { conditions.append("t0.token_digest = \(translator.bind(tokenDigest))") }
            return conditions
        }
        return query.answer(rows.map { row in
            let session = SessionStore.SessionRecord(row)
            return session.json(sessionToken: tokenIfOwn(request, session))
        }, count: count)
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
                                 [id, JSONValue.object(set).compactText, now])
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
