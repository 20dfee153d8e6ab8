import Contracts
import ParseWire

/// A class's class-level permissions as `/schemas` gives them, for what a subscriber may receive: the `find`
/// (or `get`) permission decides whether it receives the class's events at all, `protectedFields` which fields are
/// cut from the objects it receives, as parse-server's `DatabaseController.addProtectedFields` computes them.
///
/// Read once into sets when the permissions arrive: every event asks both questions for each subscriber, and reading
/// the JSON each time (a few string hashes and an array per subscriber) was a large part of a frame's cost.
struct ClassRules: Sendable {
    /// Who may `find` or `get`: nil when the permission is not set (everyone may).
    private struct Access: Sendable {
        var groups: Set<String> = []
        var requiresAuthentication = false

        init?(_ entry: JSONValue?) {
            guard let entry = entry?.objectValue else { return nil }
            for (key, value) in entry where value.boolValue == true {
                if key == "requiresAuthentication" { requiresAuthentication = true } else { groups.insert(key) }
            }
        }
    }

    let permissions: [String: JSONValue]
    /// posts' name for these permissions (`PermissionsVersion`): an event that names others was judged against a
    /// change this copy has not seen.
    let version: String
    private let find: Access?
    private let get: Access?
    /// `protectedFields`, by group; empty when no group has any field protected.
    private let protected: [String: Set<String>]

    /// Everything allowed, nothing protected: a class without a schema yet.
    static let open = ClassRules(permissions: [:])
    /// Nothing allowed without the master key: the class's permissions could not be read.
    static let closed = ClassRules(permissions: ["find": .object([:]), "get": .object([:])])

    init(permissions: [String: JSONValue]) {
        self.permissions = permissions
        version = PermissionsVersion.of(.object(permissions))
        find = Access(permissions["find"])
        get = Access(permissions["get"])
        let entries = (permissions["protectedFields"]?.objectValue ?? [:]).compactMapValues { value in
            value.arrayValue.map { Set($0.compactMap(\.stringValue)) }
        }
        // With no field protected by any entry (the default `{"*": []}`), none is ever hidden: no look-up at all.
        protected = entries.values.contains { !$0.isEmpty } ? entries : [:]
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
        let access: Access?
        switch operation {
        case "find": access = find
        case "get": access = get
        default: access = Access(permissions[operation])
        }
        guard let access else { return true }
        if access.groups.contains("*") { return true }
        guard let identity, let userId = identity.userId else { return false }
        if access.requiresAuthentication || access.groups.contains(userId) { return true }
        return identity.roles.contains { access.groups.contains($0) }
    }

    /// The fields hidden from this reader: the intersection of the `protectedFields` entries that apply to it
    /// (`*`, `authenticated` for a signed-in user, its user id, its roles).
    func protectedFields(identity: Identity?, hasMasterKey: Bool) -> Set<String> {
        guard !hasMasterKey, !protected.isEmpty else { return [] }
        var keys = Self.groups(identity)
        if identity?.userId != nil { keys.append("authenticated") }
        var hidden: Set<String>?
        for key in keys {
            guard let fields = protected[key] else { continue }
            hidden = hidden.map { $0.intersection(fields) } ?? fields
        }
        return hidden ?? []
    }
}
