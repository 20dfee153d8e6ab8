import Contracts
import ParseWire

/// A class's class-level permissions as `/schemas` gives them, for what a subscriber may receive: the `find`
/// (or `get`) permission decides whether it receives the class's events at all, `protectedFields` which fields are
/// cut from the objects it receives, as parse-server's `DatabaseController.addProtectedFields` computes them.
struct ClassRules: Sendable {
    let permissions: [String: JSONValue]
    /// posts' name for these permissions (`PermissionsVersion`): an event that names others was judged against a
    /// change this copy has not seen.
    let version: String

    /// Everything allowed, nothing protected: a class without a schema yet.
    static let open = ClassRules(permissions: [:])
    /// Nothing allowed without the master key: the class's permissions could not be read.
    static let closed = ClassRules(permissions: ["find": .object([:]), "get": .object([:])])

    init(permissions: [String: JSONValue]) {
        self.permissions = permissions
        version = PermissionsVersion.of(.object(permissions))
    }

    init(schema: [String: JSONValue]) {
        self.init(permissions: schema["classLevelPermissions"]?.objectValue ?? [:])
    }

    /// The groups a reader belongs to: `*`, its user id and its roles.
    static func groups(_ identity: Identity?) -> [String] {
        guard let identity, let userId = identity.userId else { return ["*"] }
        return ["*", userId] + identity.roles
    }

    func allows(_ operation: String, identity: Identity?, hasMasterKey: Bool) -> Bool {
        if hasMasterKey { return true }
        guard let entry = permissions[operation]?.objectValue else { return true }
        if entry["requiresAuthentication"]?.boolValue == true && identity?.userId != nil { return true }
        return Self.groups(identity).contains { entry[$0]?.boolValue == true }
    }

    /// The fields hidden from this reader: the intersection of the `protectedFields` entries that apply to it
    /// (`*`, `authenticated` for a signed-in user, its user id, its roles).
    func protectedFields(identity: Identity?, hasMasterKey: Bool) -> Set<String> {
        guard !hasMasterKey, let entries = permissions["protectedFields"]?.objectValue else { return [] }
        var keys = Self.groups(identity)
        if identity?.userId != nil { keys.append("authenticated") }
        var hidden: Set<String>?
        for key in keys {
            guard let fields = entries[key]?.arrayValue else { continue }
            let set = Set(fields.compactMap(\.stringValue))
            hidden = hidden.map { $0.intersection(set) } ?? set
        }
        return hidden ?? []
    }
}
