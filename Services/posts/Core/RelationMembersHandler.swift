import Contracts
import ParseWire
import Query
import Storage

/// `relation.members.v1`: the members of one object's relation, read from its join table, for a `$relatedTo` that
/// another service answers (see `RelationMembers`).
enum RelationMembersHandler {
    static func members(_ request: RelationMembers, on connection: PostgresConnection,
                        schemas: SchemaCache) async throws -> RelationMemberIds {
        guard Names.isValidClassName(request.className), Names.isValidFieldName(request.key) else {
            throw ParseError(.invalidKeyName, "Invalid key name: \(request.key)")
        }
        guard let schema = try await SchemaStore.load(request.className, on: connection, cache: schemas),
              schema.fields[request.key]?.kind == .relation else { return RelationMemberIds(objectIds: []) }
        let rows = try await connection.query(
            "SELECT \"relatedId\" FROM \(Names.joinTable(field: request.key, className: request.className)) "
                + "WHERE \"owningId\" = $1 LIMIT \(RelationMembers.maximumMembers + 1)",
            [request.objectId]).rows
        guard rows.count <= RelationMembers.maximumMembers else {
            throw ParseError(.invalidQuery, "$relatedTo: the relation holds more than \(RelationMembers.maximumMembers) objects.")
        }
        return RelationMemberIds(objectIds: rows.compactMap { $0["relatedId"] })
    }
}
