import Contracts
import Foundation
import ParseWire
import Storage

/// A `_User` row as read from the database, and how it looks on the wire.
struct UserRecord: Sendable {
    static let columns = "id, username, email, email_verified, password_hash, acl::text AS acl, fields::text AS fields, failed_login_count, locked_until, created_at, updated_at, auth_data::text AS auth_data, password_changed_at"

    let id: String
    let username: String
    let email: String?
    let emailVerified: Bool?
    let passwordHash: String?
    let acl: JSONValue?
    let fields: [String: JSONValue]
    /// Linked providers; never shown to anyone but the user and the master key.
    let authData: [String: JSONValue]
    let passwordChangedAt: Date?
    let failedLoginCount: Int
    let lockedUntil: Date?
    let createdAt: Date
    let updatedAt: Date

    init(_ row: PostgresRow) {
        id = row["id"] ?? ""
        username = row["username"] ?? ""
        email = row["email"]
        emailVerified = row.bool("email_verified")
        passwordHash = row["password_hash"]
        acl = row["acl"].flatMap { JSONValue.parse($0) }
        fields = row["fields"].flatMap { JSONValue.parse($0)?.objectValue } ?? [:]
        authData = row["auth_data"].flatMap { JSONValue.parse($0)?.objectValue } ?? [:]
        passwordChangedAt = row.date("password_changed_at")
        failedLoginCount = row.int("failed_login_count") ?? 0
        lockedUntil = row.date("locked_until")
        createdAt = row.date("created_at") ?? Date(timeIntervalSince1970: 0)
        updatedAt = row.date("updated_at") ?? Date(timeIntervalSince1970: 0)
    }

    /// The user as clients see it: never the password or internal columns; the email and `authData` only to the
    /// user themself and the master key (parse-server's default `protectedFields` for `_User`, and its rule that
    /// `authData` is private), which is what `showEmail` says.
    /// A second factor's secret only to the master key (`isMaster`).
    func json(showEmail: Bool, sessionToken: String? = nil, isMaster: Bool = false) -> [String: JSONValue] {
        var object = fields
        object["objectId"] = .string(id)
        object["username"] = .string(username)
        if showEmail, let email { object["email"] = .string(email) }
        if showEmail, !authData.isEmpty { object["authData"] = .object(Self.clientView(authData, isMaster: isMaster)) }
        if let emailVerified { object["emailVerified"] = .bool(emailVerified) }
        if let acl { object["ACL"] = acl }
        object["createdAt"] = AuthResponses.date(createdAt)
        object["updatedAt"] = AuthResponses.date(updatedAt)
        if let sessionToken { object["sessionToken"] = .string(sessionToken) }
        return object
    }

    /// As parse-server: the email is visible to the user and to the master key only.
    func json(for groups: AccessGroups, sessionToken: String? = nil) -> [String: JSONValue] {
        let isSelf = groups.userId == id
        return json(showEmail: groups.isMaster || isSelf, sessionToken: isSelf ? sessionToken : nil, isMaster: groups.isMaster)
    }

    /// `authData` as parse-server's adapters' `afterFind` show it: `mfa` as its status to anyone but the master key.
    static func clientView(_ authData: [String: JSONValue], isMaster: Bool) -> [String: JSONValue] {
        guard !isMaster, let mfa = authData["mfa"] else { return authData }
        var view = authData
        view["mfa"] = MultiFactorAuth.clientView(mfa)
        return view
    }
}
