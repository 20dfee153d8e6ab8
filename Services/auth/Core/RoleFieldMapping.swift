import ParseWire
import Query
import ServiceKit

/// `_Role` fields over the `roles` table. The `users` and `roles` relations read as arrays of pointers built
/// from their join tables, so `{"users": <pointer>}` finds the roles a user is directly in, as in parse-server.
struct RoleFieldMapping: ForeignSubqueryMapping {
    var foreign: ForeignSubqueries? = nil

    func column(_ name: String, alias: String, translator: WhereTranslator) throws(ParseError) -> QueryColumn? {
        switch name {
        case "objectId": return QueryColumn(sql: "\(alias).id", type: FieldType(.string))
        case "name": return QueryColumn(sql: "\(alias).name", type: FieldType(.string))
        case "createdAt": return QueryColumn(sql: "\(alias).created_at", type: FieldType(.date))
        case "updatedAt": return QueryColumn(sql: "\(alias).updated_at", type: FieldType(.date))
        case "users":
            return QueryColumn(sql: Self.pointers(className: "_User", id: "member.user_id",
                                                  from: "role_users AS member WHERE member.role_id = \(alias).id"),
                               type: FieldType(.array))
        case "roles":
            return QueryColumn(sql: Self.pointers(className: "_Role", id: "member.child_id",
                                                  from: "role_roles AS member WHERE member.parent_id = \(alias).id"),
                               type: FieldType(.array))
        default:
            return .schemaless(document: "\(alias).fields", key: translator.bind(name))
        }
    }

    /// The child roles of a role: `{"$relatedTo":{"object":<_Role pointer>,"key":"roles"}}`.
    func relatedTo(owner: String, ownerId: String, key: String, alias: String, translator: WhereTranslator) async throws -> String {
        guard owner == "_Role", key == "roles" else { throw ParseError(.invalidQuery, "improper usage of $relatedTo") }
        return "\(alias).id IN (SELECT child_id FROM role_roles WHERE parent_id = \(translator.bind(ownerId)))"
    }

    /// A relation as a `jsonb` array of pointers (NULL when empty, so `$exists` reads it as absent).
    private static func pointers(className: String, id: String, from: String) -> String {
        "(SELECT jsonb_agg(jsonb_build_object('__type', 'Pointer', 'className', '\(className)', 'objectId', \(id))) FROM \(from))"
    }
}
