import Contracts
import ParseWire

/// Who calls and from where, as every request body carries it: the caller's identity (as the gateway resolved
/// it), the user behind it (as auth holds it), the client's headers and address.
struct CallContext: Sendable {
    var identity: Identity
    /// The caller's user object, with its session token, or nil for no user.
    var user: JSONValue?
    var headers: [String: String]
    var ip: String

    var isMaster: Bool { identity.isMaster || identity.isReadOnlyMaster }

    /// The members parse-server puts in every request: `master`, `headers`, `ip`, and `user`/`installationId` when
    /// there are some.
    var commonFields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "master": .bool(isMaster),
            "headers": .object(headers.mapValues(JSONValue.string)),
            "ip": .string(ip),
        ]
        if let user { fields["user"] = user }
        if let installationId = identity.installationId { fields["installationId"] = .string(installationId) }
        return fields
    }
}
