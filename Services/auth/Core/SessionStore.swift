import Contracts
import Foundation
import ParseWire
import Storage

/// `_Session` rows. The token itself is returned once, when the session is made, and never stored.
struct SessionStore: Sendable {
    let settings: AuthSettings

    struct NewSession: Sendable {
        let id: String
        let token: String
        let createdAt: Date
        let expiresAt: Date
    }

    struct SessionRecord: Sendable {
        static let columns = "id, token_digest, user_id, created_with::text AS created_with, installation_id, expires_at, fields::text AS fields, created_at, updated_at"

        let id: String
        let tokenDigest: [UInt8]
        let userId: String
        let createdWith: JSONValue?
        let installationId: String?
        let expiresAt: Date?
        let fields: [String: JSONValue]
        let createdAt: Date
        let updatedAt: Date

        init(_ row: PostgresRow) {
            id = row["id"] ?? ""
            tokenDigest = row.bytes("token_digest") ?? []
            userId = row["user_id"] ?? ""
            createdWith = row["created_with"].flatMap { JSONValue.parse($0) }
            installationId = row["installation_id"]
            expiresAt = row.date("expires_at")
            fields = row["fields"].flatMap { JSONValue.parse($0)?.objectValue } ?? [:]
            createdAt = row.date("created_at") ?? Date(timeIntervalSince1970: 0)
            updatedAt = row.date("updated_at") ?? Date(timeIntervalSince1970: 0)
        }

        /// The session as clients see it; the token only when the caller presented it (it is not stored).
        func json(sessionToken: String?) -> [String: JSONValue] {
            var object = fields
            object["objectId"] = .string(id)
            object["user"] = AuthResponses.pointer("_User", userId)
            if let createdWith { object["createdWith"] = createdWith }
            if let installationId { object["installationId"] = .string(installationId) }
            if let expiresAt { object["expiresAt"] = AuthResponses.typedDate(expiresAt) }
            if let sessionToken { object["sessionToken"] = .string(sessionToken) }
            object["createdAt"] = AuthResponses.date(createdAt)
            object["updatedAt"] = AuthResponses.date(updatedAt)
            return object
        }
    }

    /// Creates a session for `userId` and writes `session.created`, inside the caller's transaction.
    func create(userId: String, action: String, authProvider: String?, installationId: String? = nil,
                fields: [String: JSONValue] = [:], on connection: PostgresConnection) async throws -> NewSession {
        let id = ObjectId.make()
        let token = RandomIdentifiers.sessionToken()
        let now = Date.nowMillis
        let expiresAt = now.addingTimeInterval(TimeInterval(settings.sessionLength))
        var createdWith: [String: JSONValue] = ["action": .string(action)]
        if let authProvider { createdWith["authProvider"] = .string(authProvider) }
        _ = try await connection.query("""
            INSERT INTO sessions (id, token_digest, user_id, created_with, installation_id, expires_at, fields, created_at, updated_at)
            VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7::jsonb, $8, $8)
            """, [id, SessionTokenDigest.digest(of: token), userId, JSONValue.object(createdWith).compactText,
                  installationId, expiresAt, JSONValue.object(fields).compactText, now])
        try await AuthEvents.sessionCreated(id, userId: userId, action: action, on: connection)
        return NewSession(id: id, token: token, createdAt: now, expiresAt: expiresAt)
    }

    /// The session a token names, if it exists (expired or not).
    func find(token: String, in database: any Database) async throws -> SessionRecord? {
        let digest = SessionTokenDigest.digest(of: token)
        let row = try await database.query("SELECT \(SessionRecord.columns) FROM sessions WHERE token_digest = $1", [digest]).first
        guard let row else { return nil }
        let record = SessionRecord(row)
        // The index lookup already matched the digest; compare again without an early exit, so the answer's
        // timing never depends on how much of a guessed token was right.
        return SessionTokenDigest.constantTimeEqual(record.tokenDigest, digest) ? record : nil
    }

    /// Deletes sessions matching `condition` (SQL over `sessions`, parameters from $1) and writes `session.revoked`
    /// for each. Returns the ids deleted.
    @discardableResult
    func revoke(where condition: String, _ parameters: [(any PostgresBindable)?], reason: String,
                on connection: PostgresConnection) async throws -> [String] {
        let rows = try await connection.query("DELETE FROM sessions WHERE \(condition) RETURNING id, user_id", parameters).rows
        for row in rows {
            try await AuthEvents.sessionRevoked(row["id"] ?? "", userId: row["user_id"] ?? "", reason: reason, on: connection)
        }
        return rows.compactMap { $0["id"] }
    }
}
