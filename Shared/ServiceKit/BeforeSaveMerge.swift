import ParseWire

/// parse-server's beforeSave data flow, as plain functions: the trigger sees the object with the write applied;
/// the fields its answer changed replace the client's in what is written, and are added to the client's answer.
public enum BeforeSaveMerge {
    /// Fields a trigger's answer cannot change (parse-server drops them from a webhook's answer too).
    static let fixed: Set<String> = ["className", "objectId", "createdAt", "updatedAt"]

    /// `original` (nil for a create) with the client's `changes` applied, as the trigger sees it. Relation
    /// operations leave the field as it was: the trigger sees the relation, not its members.
    public static func applying(_ changes: [String: JSONValue], to original: [String: JSONValue]?) -> [String: JSONValue] {
        var object = original ?? [:]
        for (name, change) in changes {
            guard case .object(let fields) = change, let op = fields["__op"]?.stringValue else {
                object[name] = change
                continue
            }
            let current = object[name]
            switch op {
            case "Delete":
                object[name] = nil
            case "Increment":
                object[name] = .number((current?.numberValue ?? 0) + (fields["amount"]?.numberValue ?? 0))
            case "Add":
                object[name] = .array((current?.arrayValue ?? []) + (fields["objects"]?.arrayValue ?? []))
            case "AddUnique":
                var items = current?.arrayValue ?? []
                for item in fields["objects"]?.arrayValue ?? [] where !items.contains(item) { items.append(item) }
                object[name] = .array(items)
            case "Remove":
                let removed = fields["objects"]?.arrayValue ?? []
                object[name] = .array((current?.arrayValue ?? []).filter { !removed.contains($0) })
            default:
                break
            }
        }
        return object
    }

    /// What is written and which fields the trigger changed: every field of `answer` that differs from what the
    /// trigger was given (`given`) replaces the client's change of it. A field the answer leaves out is not
    /// deleted (an answer may name only what it changed); a trigger deletes one with `{"__op":"Delete"}`.
    public static func merge(answer: [String: JSONValue], given: [String: JSONValue],
                             changes: [String: JSONValue]) -> (changes: [String: JSONValue], changed: [String]) {
        var changes = changes
        var changed: [String] = []
        for (name, value) in answer where !fixed.contains(name) && given[name] != value {
            if case .object(let fields) = value, fields["__op"]?.stringValue == "Delete", given[name] == nil,
               changes[name] == nil { continue }
            changes[name] = value
            changed.append(name)
        }
        return (changes, changed.sorted())
    }

    /// The client's answer with the fields the trigger changed, as parse-server's `_updateResponseWithData`:
    /// the trigger's value, except that operations are not answered (a `Delete` is, as the SDKs expect).
    public static func answer(_ response: [String: JSONValue], changed: [String],
                              changes: [String: JSONValue]) -> [String: JSONValue] {
        var response = response
        for name in changed {
            guard let value = changes[name] else { continue }
            if case .object(let fields) = value, let op = fields["__op"]?.stringValue {
                if op == "Delete" { response[name] = value } else if response[name]?.objectValue?["__op"] != nil {
                    response[name] = nil
                }
                continue
            }
            if response[name] == nil { response[name] = value }
        }
        return response
    }
}
