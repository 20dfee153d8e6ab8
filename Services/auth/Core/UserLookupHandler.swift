import Contracts
import ParseWire
import Runtime
import Storage

/// `users.lookup.v1`: the users behind many object ids in one query, as the calling identity may read them.
/// Same visibility and shape as `GET /users/<id>` (ACL, email only to the user themself and the master key),
/// minus the `sessionToken`, which an included user never carries.
struct UserLookupHandler: Sendable {
    let pool: PostgresPool

    func lookup(_ command: Command<UserLookup>, logger: Logger) async throws -> UserLookupResult {
        let ids = Array(Set(command.payload.objectIds))
        guard ids.count <= UserLookup.maxObjectIds else {
            throw ParseError(.invalidQuery, "Too many users to look up at once (at most \(UserLookup.maxObjectIds)).")
        }
        let users = try await readable(ids, for: command.identity)
        // One line per lookup, so the batching (one lookup per query, not per row) can be checked in the logs.
        logger.info("users looked up", ["users.requested": "\(ids.count)", "users.readable": "\(users.count)"])
        return UserLookupResult(users: users)
    }

    /// The users among `ids` that `identity` may read, by id.
    func readable(_ ids: [String], for identity: Identity) async throws -> [String: [String: JSONValue]] {
        guard !ids.isEmpty else { return [:] }
        let groups = AccessGroups(identity)
        var users: [String: [String: JSONValue]] = [:]
        var sql = SQLParameters()
        let rows = try await pool.query(
            "SELECT \(UserRecord.columns) FROM users WHERE id = ANY(\(sql.bindTextArray(ids)))", sql.values).rows
        for user in rows.map(UserRecord.init) where groups.canRead(user.acl) {
            users[user.id] = user.json(for: groups, sessionToken: nil)
        }
        return users
    }
}
