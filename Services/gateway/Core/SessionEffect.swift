/// What a request may change in the identities the gateway caches: the caller's sessions (logout, a user or a
/// session changed or deleted) or anyone's roles (a write to a role or to its members).
struct SessionEffect: OptionSet, Sendable {
    let rawValue: Int

    static let endsSessions = SessionEffect(rawValue: 1)
    static let changesRoles = SessionEffect(rawValue: 2)

    /// `route` is the path below the mount; `method` has the `_method` override applied.
    init(method: String, route: String) {
        let segments = route.split(separator: "/").map(String.init)
        var first = segments.first ?? ""
        if first == "classes" {
            first = switch segments.dropFirst().first {
            case "_User": "users"
            case "_Session": "sessions"
            case "_Role": "roles"
            default: ""
            }
        }
        let writes = method == "PUT" || method == "DELETE" || method == "POST"
        switch first {
        case "logout":
            self = .endsSessions
        case "users", "sessions":
            self = method == "PUT" || method == "DELETE" ? .endsSessions : []
        case "roles":
            self = writes ? .changesRoles : []
        default:
            self = []
        }
    }

    init(rawValue: Int) { self.rawValue = rawValue }
}
