import Contracts
import ParseWire
import Query

/// A class's `protectedFields` (class-level permissions) as they apply to one caller, as parse-server's
/// `addProtectedFields` and `filterSensitiveData` compute them: every entry that applies to the caller (`*`,
/// `authenticated`, the user's id, each of their roles) names fields to hide, and what is hidden is what all of them
/// name. A `userField:<pointer>` entry applies object by object, to the user that pointer (or array of pointers)
/// names. The master key sees everything.
struct ProtectedFields {
    let entries: [String: JSONValue]
    let identity: Identity
    /// What the object-independent entries hide.
    let base: Set<String>

    init?(schema: ClassSchema, identity: Identity) {
        guard !identity.isMaster && !identity.isReadOnlyMaster,
              let entries = schema.classLevelPermissions?["protectedFields"]?.objectValue else { return nil }
        self.entries = entries
        self.identity = identity
        let groups = Set(AccessControl.groups(identity))
        var sets: [Set<String>] = []
        for (key, value) in entries where !key.hasPrefix("userField:") {
            let applies = key == "*" || identity.userId != nil && (key == "authenticated" || groups.contains(key))
            if applies { sets.append(Self.fields(value)) }
        }
        var hidden = sets.reduce(into: Set<String>()) { $0.formUnion($1) }
        for set in sets { hidden.formIntersection(set) }
        base = hidden
    }

    private static func fields(_ value: JSONValue) -> Set<String> {
        Set(value.arrayValue?.compactMap(\.stringValue) ?? [])
    }

    /// The fields hidden from the caller in `object`.
    func hidden(in object: [String: JSONValue]) -> Set<String> {
        guard let userId = identity.userId else { return base }
        var hidden = base
        for (key, value) in entries where key.hasPrefix("userField:") {
            let field = String(key.dropFirst("userField:".count))
            let owners: [JSONValue] = object[field]?.arrayValue ?? object[field].map { [$0] } ?? []
            if owners.contains(where: { $0["objectId"]?.stringValue == userId }) {
                hidden.formIntersection(Self.fields(value))
            }
        }
        return hidden
    }

    func strip(_ object: inout [String: JSONValue]) {
        for field in hidden(in: object) where !QueryOptions.alwaysKept.contains(field) { object[field] = nil }
    }

    /// parse-server refuses a query on a field it would hide, so a query cannot probe it.
    func checkQuery(_ clause: [String: JSONValue], className: String) throws(ParseError) {
        for (key, value) in clause {
            if key == "$or" || key == "$and" || key == "$nor" {
                for item in value.arrayValue ?? [] { try checkQuery(item.objectValue ?? [:], className: className) }
                continue
            }
            let field = String(key.split(separator: ".").first ?? "")
            if base.contains(field) {
                throw ParseError(.operationForbidden, "This user is not allowed to query \(key) on class \(className)")
            }
        }
    }
}
