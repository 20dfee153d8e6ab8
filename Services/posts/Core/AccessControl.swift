import Storage
import Contracts
import ParseWire

/// Object-level permissions: the ACL a client writes, stored as `_rperm`/`_wperm` arrays, and the SQL that keeps
/// rows a caller may not read or write out of every statement (so "not allowed" looks exactly like "missing").
public enum AccessControl {
    /// `*`, the user's id and `role:<name>` of each of their roles.
    public static func groups(_ identity: Identity) -> [String] {
        var groups = ["*"]
        if let userId = identity.userId { groups.append(userId) }
        for role in identity.roles { groups.append(role.hasPrefix("role:") ? role : "role:" + role) }
        return groups
    }

    /// Nil for the master key, which sees everything.
    static func readFilter(_ identity: Identity, _ parameters: inout SQLParameters, table: String = "") -> String? {
        guard !identity.isMaster && !identity.isReadOnlyMaster else { return nil }
        let column = table.isEmpty ? "\"_rperm\"" : "\(table).\"_rperm\""
        return "(\(column) IS NULL OR \(column) && \(parameters.bindTextArray(groups(identity))))"
    }

    static func writeFilter(_ identity: Identity, _ parameters: inout SQLParameters) -> String? {
        guard !identity.isMaster else { return nil }
        return "(\"_wperm\" IS NULL OR \"_wperm\" && \(parameters.bindTextArray(groups(identity))))"
    }

    /// `{"*":{"read":true},"abc":{"read":true,"write":true}}` -> the readers and writers; only `true` counts.
    public static func permissions(fromACL acl: JSONValue) throws(ParseError) -> (read: [String], write: [String]) {
        guard let entries = acl.objectValue else { throw ParseError(.invalidACL, "Invalid ACL.") }
        var readers: [String] = [], writers: [String] = []
        for (who, grant) in entries.sorted(by: { $0.key < $1.key }) {
            guard let grant = grant.objectValue, !who.isEmpty else { throw ParseError(.invalidACL, "Invalid ACL.") }
            for (permission, value) in grant {
                guard permission == "read" || permission == "write", let allowed = value.boolValue else {
                    throw ParseError(.invalidACL, "Invalid ACL.")
                }
                if allowed && permission == "read" { readers.append(who) }
                if allowed && permission == "write" { writers.append(who) }
            }
        }
        return (readers, writers)
    }

    /// The ACL a client reads back; nil when the object has none (public).
    public static func acl(read: [String]?, write: [String]?) -> JSONValue? {
        guard read != nil || write != nil else { return nil }
        var entries: [String: [String: JSONValue]] = [:]
        for who in read ?? [] { entries[who, default: [:]]["read"] = .bool(true) }
        for who in write ?? [] { entries[who, default: [:]]["write"] = .bool(true) }
        return .object(entries.mapValues { .object($0) })
    }
}
