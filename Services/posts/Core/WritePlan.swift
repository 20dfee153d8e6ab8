import Foundation
import ParseWire
import Query

/// A write body checked and sorted: plain values and operators per field, the ACL, relation changes, and the
/// types the fields need. Building it touches no database.
struct WritePlan: Sendable {
    enum Change: Sendable {
        case set(JSONValue)
        case delete
        case increment(Double)
        case add([JSONValue])
        case addUnique([JSONValue])
        case remove([JSONValue])
        /// Relation members to add and to remove (objectIds).
        case relation(add: [String], remove: [String])
    }

    var changes: [String: Change] = [:]
    /// Whether a change adds or removes relation members, which a create writes with statements of their own.
    var changesRelations: Bool {
        changes.values.contains { if case .relation = $0 { true } else { false } }
    }
    var wantedTypes: [String: FieldType] = [:]
    var acl: (read: [String], write: [String])?
    var hasACL = false
    /// Kept from an import (master key only): objectId, createdAt, updatedAt; the objectId also from any client
    /// with `allowCustomObjectId`.
    var objectId: String?
    var createdAt: Date?
    var updatedAt: Date?

    init(_ body: [String: JSONValue], keepSystemFields: Bool, customObjectId: Bool = false) throws(ParseError) {
        for (name, value) in body.sorted(by: { $0.key < $1.key }) {
            switch name {
            case "objectId", "id":
                guard keepSystemFields || customObjectId, name == "objectId" else {
                    throw ParseError(.invalidKeyName, "\(name) is an invalid field name.")
                }
                objectId = try ObjectIdField.custom(value)
            case "createdAt", "updatedAt":
                // Silently ignored for clients, as in parse-server; an import keeps them.
                guard keepSystemFields, let date = try? ValueStorage.date(value) else { continue }
                if name == "createdAt" { createdAt = date } else { updatedAt = date }
            case "ACL":
                hasACL = true
                acl = value.isNull ? nil : try AccessControl.permissions(fromACL: value)
            default:
                guard Names.isValidFieldName(name) else {
                    throw ParseError(.invalidKeyName, "Invalid field name: \(name).")
                }
                try addChange(name, value)
            }
        }
    }

    private mutating func addChange(_ name: String, _ value: JSONValue) throws(ParseError) {
        if let type = try FieldType.of(value) { wantedTypes[name] = type }
        guard let fields = value.objectValue, let op = fields["__op"]?.stringValue else {
            if value["__type"]?.stringValue == "Relation" { return }
            changes[name] = .set(value)
            return
        }
        switch op {
        case "Delete": changes[name] = .delete
        case "Increment":
            guard let amount = fields["amount"]?.numberValue, amount.isFinite else {
                throw ParseError(.invalidJSON, "Increment amount must be a number.")
            }
            changes[name] = .increment(amount)
        case "Add", "AddUnique", "Remove":
            guard let objects = fields["objects"]?.arrayValue else {
                throw ParseError(.invalidJSON, "objects to add must be an array")
            }
            try ValueStorage.checkNestedKeys(.array(objects))
            changes[name] = op == "Add" ? .add(objects) : op == "AddUnique" ? .addUnique(objects) : .remove(objects)
        case "AddRelation", "RemoveRelation", "Batch":
            let (added, removed) = try relationChange(fields)
            changes[name] = .relation(add: added, remove: removed)
        default:
            throw ParseError(.invalidJSON, "Unknown update operator: \(op)")
        }
    }

    private func relationChange(_ fields: [String: JSONValue]) throws(ParseError) -> ([String], [String]) {
        let ops = fields["__op"]?.stringValue == "Batch" ? (fields["ops"]?.arrayValue ?? []) : [.object(fields)]
        var added: [String] = [], removed: [String] = [], target: String?
        for op in ops {
            let name = op["__op"]?.stringValue
            guard name == "AddRelation" || name == "RemoveRelation", let objects = op["objects"]?.arrayValue else {
                throw ParseError(.invalidJSON, "Relation operations need an array of pointers.")
            }
            for object in objects {
                guard object["__type"]?.stringValue == "Pointer", let id = object["objectId"]?.stringValue,
                      let className = object["className"]?.stringValue else {
                    throw ParseError(.invalidPointer, "Relations only hold pointers.")
                }
                if let target, target != className {
                    throw ParseError(.incorrectType, "Relations can only hold objects of one class.")
                }
                target = className
                if name == "AddRelation" { added.append(id) } else { removed.append(id) }
            }
        }
        return (added, removed)
    }

    /// The value a field takes on create, when an operator is applied to nothing.
    static func initialValue(_ change: Change) -> JSONValue? {
        switch change {
        case .set(let value): value
        case .delete, .relation: nil
        case .increment(let amount): .number(amount)
        case .add(let objects): .array(objects)
        case .addUnique(let objects):
            .array(objects.reduce(into: [JSONValue]()) { unique, item in if !unique.contains(item) { unique.append(item) } })
        case .remove: .array([])
        }
    }

    /// Whether parse-server echoes the field's new value in the write's answer.
    static func isEchoed(_ change: Change) -> Bool {
        switch change {
        case .increment, .add, .addUnique, .remove: true
        default: false
        }
    }
}
