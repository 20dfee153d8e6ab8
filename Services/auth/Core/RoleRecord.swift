import Foundation
import ParseWire
import Storage

/// A `_Role` row, and how it looks on the wire (its relations as `Relation` placeholders, as parse-server).
struct RoleRecord: Sendable {
    static let columns = "id, name, acl::text AS acl, fields::text AS fields, created_at, updated_at"

    let id: String
    let name: String
    let acl: JSONValue?
    let fields: [String: JSONValue]
    let createdAt: Date
    let updatedAt: Date

    init(_ row: PostgresRow) {
        id = row["id"] ?? ""
        name = row["name"] ?? ""
        acl = row["acl"].flatMap { JSONValue.parse($0) }
        fields = row["fields"].flatMap { JSONValue.parse($0)?.objectValue } ?? [:]
        createdAt = row.date("created_at") ?? Date(timeIntervalSince1970: 0)
        updatedAt = row.date("updated_at") ?? Date(timeIntervalSince1970: 0)
    }

    var json: [String: JSONValue] {
        var object = fields
        object["objectId"] = .string(id)
        object["name"] = .string(name)
        if let acl { object["ACL"] = acl }
        object["users"] = .object(["__type": .string("Relation"), "className": .string("_User")])
        object["roles"] = .object(["__type": .string("Relation"), "className": .string("_Role")])
        object["createdAt"] = AuthResponses.date(createdAt)
        object["updatedAt"] = AuthResponses.date(updatedAt)
        return object
    }
}

