import Contracts
import ParseWire
import Query
import ServiceKit
import Storage

/// `_User` fields over the `users` table: fixed columns for the fields auth manages, the `fields` document for
/// custom ones. Secrets are never queryable, and `email` only with the master key (parse-server's default
/// `protectedFields`), so a query cannot probe what the answer would hide.
struct UserFieldMapping: ForeignSubqueryMapping {
    let isMaster: Bool
    var foreign: ForeignSubqueries? = nil

    func column(_ name: String, alias: String, translator: WhereTranslator) throws(ParseError) -> QueryColumn? {
        switch name {
        case "objectId": return QueryColumn(sql: "\(alias).id", type: FieldType(.string))
        case "username": return QueryColumn(sql: "\(alias).username", type: FieldType(.string))
        case "email":
            guard isMaster else { throw ParseError(.operationForbidden, "This user is not allowed to query email on class _User") }
            return QueryColumn(sql: "\(alias).email", type: FieldType(.string))
        case "emailVerified": return QueryColumn(sql: "\(alias).email_verified", type: FieldType(.boolean))
        case "createdAt": return QueryColumn(sql: "\(alias).created_at", type: FieldType(.date))
        case "updatedAt": return QueryColumn(sql: "\(alias).updated_at", type: FieldType(.date))
        case "password", "sessionToken", "authData":
            throw ParseError(.invalidKeyName, "Invalid key name: \(name)")
        default:
            return .schemaless(document: "\(alias).fields", key: translator.bind(name))
        }
    }

    /// The members of a role: `{"$relatedTo":{"object":<_Role pointer>,"key":"users"}}`; of a relation an object of
    /// posts' holds (a `Post`'s likers), as posts reads them from its join table.
    func relatedTo(owner: String, ownerId: String, key: String, alias: String, translator: WhereTranslator) async throws -> String {
        if owner == "_Role" && key == "users" {
            return "\(alias).id IN (SELECT user_id FROM role_users WHERE role_id = \(translator.bind(ownerId)))"
        }
        guard let foreign, ServiceName.owner(ofClass: owner) == .posts else {
            throw ParseError(.invalidQuery, "improper usage of $relatedTo")
        }
        let members = try await foreign.relationMembers(className: owner, objectId: ownerId, key: key)
        return "\(alias).id = ANY(\(translator.bind(PostgresArray.literal(members)))::text[])"
    }
}
