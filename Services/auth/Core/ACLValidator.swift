import ParseWire

/// Parse ACLs on the wire: `{"<userId>|*|role:<name>": {"read": true, "write": true}}`.
enum ACLValidator {
    static func validate(_ value: JSONValue) throws -> JSONValue {
        guard let entries = value.objectValue else { throw ParseError(.invalidACL, "Invalid ACL.") }
        for (key, permissions) in entries {
            guard !key.isEmpty, let flags = permissions.objectValue else { throw ParseError(.invalidACL, "Invalid ACL.") }
            for (name, flag) in flags {
                guard name == "read" || name == "write", flag.boolValue != nil else {
                    throw ParseError(.invalidACL, "Invalid ACL.")
                }
            }
        }
        return value
    }

    /// A user can always read and write their own record (no self-lockout), as parse-server enforces.
    static func withOwnerAccess(_ acl: JSONValue?, userId: String) -> JSONValue {
        var entries = acl?.objectValue ?? [:]
        entries[userId] = .object(["read": .bool(true), "write": .bool(true)])
        return .object(entries)
    }
}
