import ParseWire

/// `include` of `_User` pointers, which posts cannot read itself: after the classes it owns are expanded, every
/// `_User` pointer along the include paths, at any depth and in every row, is gathered for a single lookup, then
/// replaced by the user or dropped when the caller may not read it (as parse-server does: the key disappears, an
/// array loses the element).
///
/// Include paths that continue below a user (`user.avatar`) stop at the user: its own pointers stay pointers.
enum UserIncludes {
    static let className = "_User"

    /// Ids of the `_User` pointers reachable through `paths`.
    static func userIds(in objects: [[String: JSONValue]], paths: ObjectReader.PathTree) -> Set<String> {
        var ids: Set<String> = []
        for object in objects { collect(object, paths, into: &ids) }
        return ids
    }

    /// Puts `users` (readable users by id) in place of the `_User` pointers reachable through `paths`.
    static func replace(in objects: inout [[String: JSONValue]], paths: ObjectReader.PathTree,
                        users: [String: [String: JSONValue]]) {
        for index in objects.indices { objects[index] = replaced(objects[index], paths, users) }
    }

    private static func collect(_ object: [String: JSONValue], _ paths: ObjectReader.PathTree, into ids: inout Set<String>) {
        for (key, subtree) in paths.children {
            guard let value = object[key] else { continue }
            for item in elements(value) {
                guard case .object(let fields) = item else { continue }
                if let id = userPointerId(fields) {
                    ids.insert(id)
                } else if fields["__type"]?.stringValue == "Object" {
                    collect(fields, subtree, into: &ids)
                }
            }
        }
    }

    private static func replaced(_ object: [String: JSONValue], _ paths: ObjectReader.PathTree,
                                 _ users: [String: [String: JSONValue]]) -> [String: JSONValue] {
        var object = object
        for (key, subtree) in paths.children {
            guard let value = object[key] else { continue }
            switch value {
            case .array(let items):
                object[key] = .array(items.compactMap { replacement(for: $0, subtree, users) })
            default:
                object[key] = replacement(for: value, subtree, users)
            }
        }
        return object
    }

    /// Nil when the value is a pointer to a user the caller may not read (or that does not exist).
    private static func replacement(for value: JSONValue, _ subtree: ObjectReader.PathTree,
                                    _ users: [String: [String: JSONValue]]) -> JSONValue? {
        guard case .object(let fields) = value else { return value }
        if let id = userPointerId(fields) {
            guard var user = users[id] else { return nil }
            user["__type"] = .string("Object")
            user["className"] = .string(className)
            return .object(user)
        }
        if fields["__type"]?.stringValue == "Object" { return .object(replaced(fields, subtree, users)) }
        return value
    }

    private static func userPointerId(_ fields: [String: JSONValue]) -> String? {
        guard fields["__type"]?.stringValue == "Pointer", fields["className"]?.stringValue == className else { return nil }
        return fields["objectId"]?.stringValue
    }

    private static func elements(_ value: JSONValue) -> [JSONValue] {
        if case .array(let items) = value { return items }
        return [value]
    }
}
