import Contracts
import ParseWire
import Storage

/// Who may see or change a row: the caller's ACL entries (`*`, their user id, `role:<name>` for every role they
/// hold, nested ones included) or the master key, which skips ACLs entirely.
///
/// `Identity.roles` carries role names already in their ACL form, `role:<name>`, so any service can intersect
/// them with an ACL's keys without knowing about roles.
struct AccessGroups: Sendable {
    let isMaster: Bool
    let userId: String?
    let entries: [String]

    init(_ identity: Identity) {
        isMaster = identity.isMaster || identity.isReadOnlyMaster
        userId = identity.userId
        entries = ["*"] + (identity.userId.map { [$0] } ?? []) + identity.roles
    }

    func canRead(_ acl: JSONValue?) -> Bool { allows(acl, "read") }
    func canWrite(_ acl: JSONValue?) -> Bool { allows(acl, "write") }

    private func allows(_ acl: JSONValue?, _ permission: String) -> Bool {
        if isMaster { return true }
        guard let acl, let entriesByKey = acl.objectValue else { return true }   // no ACL: public
        return entries.contains { entriesByKey[$0]?[permission]?.boolValue == true }
    }

    /// The caller's entries as a PostgreSQL text array literal, for `acl ?| $n`-style filters.
    var postgresArray: String { PostgresArray.literal(entries) }

    /// SQL that is true when the row's ACL lets these groups read it; `$index` is `postgresArray`.
    static func readableSQL(aclColumn: String, parameter index: Int) -> String {
        "(\(aclColumn) IS NULL OR EXISTS (SELECT 1 FROM unnest($\(index)::text[]) AS entry WHERE (\(aclColumn) -> entry ->> 'read') = 'true'))"
    }

    /// The condition a query adds so these groups see only rows they may read (none for the master key).
    func readConditions(aclColumn: String = "acl", sql: inout SQLParameters) -> [String] {
        guard !isMaster else { return [] }
        let condition = Self.readableSQL(aclColumn: aclColumn, parameter: sql.values.count + 1)
        _ = sql.bind(postgresArray)
        return [condition]
    }
}
