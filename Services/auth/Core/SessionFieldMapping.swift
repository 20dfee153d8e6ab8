import ParseWire
import Query
import ServiceKit

/// `_Session` fields over the `sessions` table. Tokens are stored only as digests: `sessionToken` is queryable
/// by equality alone (see `SessionHandler`), never compared or sorted otherwise.
struct SessionFieldMapping: ForeignSubqueryMapping {
    var foreign: ForeignSubqueries? = nil

    func column(_ name: String, alias: String, translator: WhereTranslator) throws(ParseError) -> QueryColumn? {
        switch name {
        case "objectId": return QueryColumn(sql: "\(alias).id", type: FieldType(.string))
        case "user": return QueryColumn(sql: "\(alias).user_id", type: FieldType(.pointer, targetClass: "_User"))
        case "installationId": return QueryColumn(sql: "\(alias).installation_id", type: FieldType(.string))
        case "createdWith": return QueryColumn(sql: "\(alias).created_with", type: FieldType(.object))
        case "expiresAt": return QueryColumn(sql: "\(alias).expires_at", type: FieldType(.date))
        case "createdAt": return QueryColumn(sql: "\(alias).created_at", type: FieldType(.date))
        case "updatedAt": return QueryColumn(sql: "\(alias).updated_at", type: FieldType(.date))
        case "sessionToken":
            throw ParseError(.invalidQuery, "sessionToken can only be queried for equality, at the top level of the query.")
        default:
            return .schemaless(document: "\(alias).fields", key: translator.bind(name))
        }
    }
}
