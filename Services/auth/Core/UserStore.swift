import Contracts
import Foundation
import ParseWire
import Storage

/// `_User` rows and the role names a user holds.
struct UserStore: Sendable {
    let pool: any Database

    func find(id: String) async throws -> UserRecord? {
        try await pool.query("SELECT \(UserRecord.columns) FROM users WHERE id = $1", [id]).first.map(UserRecord.init)
    }

    /// parse-server's login lookup, case-sensitive: by email when one is given (and by both when both are),
    /// else the username matches either the username or the email; a username match wins over an email match.
    func findForLogin(username: String?, email: String?) async throws -> UserRecord? {
        let rows: [PostgresRow]
        switch (username, email) {
        case let (username?, email?):
            rows = try await pool.query("SELECT \(UserRecord.columns) FROM users WHERE username = $1 AND email = $2",
                                        [username, email]).rows
        case let (nil, email?):
            rows = try await pool.query("SELECT \(UserRecord.columns) FROM users WHERE email = $1", [email]).rows
        case let (username?, nil):
            rows = try await pool.query("SELECT \(UserRecord.columns) FROM users WHERE username = $1 OR email = $1",
                                        [username]).rows
        case (nil, nil):
            rows = []
        }
        let users = rows.map(UserRecord.init)
        return users.first { $0.username == username } ?? users.first
    }

    /// Throws 202/203 when the username or email is already used, ignoring case (and ignoring `exceptUserId`).
    func checkUnique(username: String?, email: String?, exceptUserId: String? = nil) async throws {
        if let username {
            let taken = try await pool.query("SELECT 1 FROM users WHERE lower(username) = lower($1) AND id IS DISTINCT FROM $2",
                                             [username, exceptUserId]).first != nil
            if taken { throw ParseError(.usernameTaken, "Account already exists for this username.") }
        }
        if let email {
            let taken = try await pool.query("SELECT 1 FROM users WHERE lower(email) = lower($1) AND id IS DISTINCT FROM $2",
                                             [email, exceptUserId]).first != nil
            if taken { throw ParseError(.emailTaken, "Account already exists for this email address.") }
        }
    }

    /// Maps a unique-index violation (a race between two signups) to the error the earlier check would give.
    static func uniquenessError(_ error: any Error) -> any Error {
        guard let failure = error as? PostgresError, failure.sqlState == "23505" else { return error }
        switch failure.constraint {
        case "users_username_unique": return ParseError(.usernameTaken, "Account already exists for this username.")
        case "users_email_unique": return ParseError(.emailTaken, "Account already exists for this email address.")
        case "roles_name_key", "users_pkey", "roles_pkey":
            return ParseError(.duplicateValue, "A duplicate value for a field with unique values was provided")
        default: return error
        }
    }

    /// Every role the user holds, directly or through roles nested in other roles, as `role:<name>` ACL entries.
    /// A role R whose `roles` relation contains a role the user holds is held too; `UNION` stops at cycles.
    func roleEntries(userId: String) async throws -> [String] {
        try await pool.query("""
            WITH RECURSIVE held(id) AS (
                SELECT role_id FROM role_users WHERE user_id = $1
                UNION
                SELECT role_roles.parent_id FROM role_roles JOIN held ON role_roles.child_id = held.id
            )
            SELECT name FROM roles WHERE id IN (SELECT id FROM held) ORDER BY name
            """, [userId]).rows.compactMap { $0["name"] }.map { "role:" + $0 }
    }
}
