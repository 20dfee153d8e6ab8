import ParseWire

/// Relation changes from a body: `{"__op":"AddRelation"|"RemoveRelation","objects":[pointers]}`.
struct RoleRelationChange {
    var added: [String] = []
    var removed: [String] = []

    init(_ value: JSONValue, className: String) throws {
        let operation = value["__op"]?.stringValue
        guard operation == "AddRelation" || operation == "RemoveRelation" || operation == "Batch" else {
            throw ParseError(.incorrectType, "schema mismatch for _Role.\(className == "_User" ? "users" : "roles"); expected Relation<\(className)> but got \(value.typeName)")
        }
        if operation == "Batch" {
            for item in value["ops"]?.arrayValue ?? [] {
                let nested = try RoleRelationChange(item, className: className)
                added += nested.added
                removed += nested.removed
            }
            return
        }
        var ids: [String] = []
        for object in value["objects"]?.arrayValue ?? [] {
            guard object["className"]?.stringValue == className, let id = object["objectId"]?.stringValue else {
                throw ParseError(.invalidPointer, "Invalid pointer in relation to \(className).")
            }
            ids.append(id)
        }
        if operation == "AddRelation" { added = ids } else { removed = ids }
    }
}

