import Contracts
import ParseWire

/// Whether a reader may see an object, by its ACL as parse-server's LiveQuery checks it (no ACL or public read:
/// everyone; else the reader's user id or one of its `role:` entries), and the object as that reader receives it.
enum ObjectVisibility {
    static func mayRead(_ object: [String: JSONValue], hasMasterKey: Bool, identity: Identity?) -> Bool {
        if hasMasterKey { return true }
        guard let acl = object["ACL"]?.objectValue else { return true }
        if acl["*"]?["read"]?.boolValue == true { return true }
        guard let identity, let userId = identity.userId else { return false }
        if acl[userId]?["read"]?.boolValue == true { return true }
        return identity.roles.contains { acl[$0]?["read"]?.boolValue == true }
    }

    /// The fields sent: with `keys`, the object's defaults (`className`, `objectId`, `createdAt`, `updatedAt`,
    /// `ACL`) and the keys it has, as parse-server's `Client._toJSONWithFields`.
    static func shaped(_ object: [String: JSONValue], keys: [String]?) -> [String: JSONValue] {
        guard let keys else { return object }
        var limited: [String: JSONValue] = [:]
        for field in ["className", "objectId", "updatedAt", "createdAt", "ACL"] + keys {
            if let value = object[field] { limited[field] = value }
        }
        return limited
    }
}
