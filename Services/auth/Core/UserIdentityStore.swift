import ParseWire
import Storage

/// `user_identities`: which user each provider id belongs to.
struct UserIdentityStore: Sendable {
    let pool: PostgresPool

    static let alreadyLinked = ParseError(.init(rawValue: 208), "this auth is already used")

    /// The users (at most two: one is an answer, two a conflict) linked to any of the identities, as
    /// parse-server's `findUsersWithAuthData`. Without the master key a locked user (ACL `{}`) is not found.
    func users(linkedTo authData: AuthData, isMaster: Bool) async throws -> [UserRecord] {
        let identities = authData.identities
        guard !identities.isEmpty else { return [] }
        var sql = SQLParameters()
        let providers = sql.bindTextArray(identities.map(\.provider))
        let ids = sql.bindTextArray(identities.map(\.id))
        let rows = try await pool.query("""
            SELECT \(UserRecord.columns) FROM users WHERE id IN (
                SELECT user_id FROM user_identities
                WHERE (provider, provider_user_id) IN (SELECT * FROM unnest(\(providers), \(ids))))
            ORDER BY created_at LIMIT 2
            """, sql.values).rows
        return rows.map(UserRecord.init).filter { isMaster || $0.acl?.objectValue?.isEmpty != true }
    }

    /// Makes the user's identity rows match `authData`'s changes, inside the caller's transaction: a provider set
    /// replaces the user's id for it, `null` removes it. Another user holding the id fails with 208.
    func apply(_ authData: AuthData, userId: String, on connection: PostgresConnection) async throws {
        for (provider, data) in authData.entries.sorted(by: { $0.key < $1.key }) {
            _ = try await connection.query("DELETE FROM user_identities WHERE user_id = $1 AND provider = $2", [userId, provider])
            guard let id = AuthData.identifier(data) else { continue }
            _ = try await connection.query(
                "INSERT INTO user_identities (provider, provider_user_id, user_id) VALUES ($1, $2, $3)", [provider, id, userId])
        }
    }

    /// A race lost on the primary key is the conflict the earlier look-up would have found.
    static func linkError(_ error: any Error) -> any Error {
        guard let failure = error as? PostgresError, failure.sqlState == "23505",
              failure.constraint == "user_identities_pkey" else { return UserStore.uniquenessError(error) }
        return alreadyLinked
    }
}
