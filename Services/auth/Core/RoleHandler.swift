import Contracts
import Foundation
import ParseWire
import Query
import Storage

/// `/roles` (class `_Role`): a name given once, an ACL, and the `users` and `roles` relations. A user holds
/// role R when they are in R's `users`, or hold a role that is in R's `roles` (see `UserStore.roleEntries`).
struct RoleHandler: Sendable {
    let pool: PostgresPool
    /// `PARSE_SERVER_ALLOW_CUSTOM_OBJECT_ID`: a new role may name its own `objectId`.
    var allowCustomObjectId = false

    func create(_ request: AuthRequest) async throws -> RESTResponse {
        try request.requireWritable("create")
        var body = try request.body()
        guard let nameValue = body.removeValue(forKey: "name"), !nameValue.isNull else {
            throw ParseError(.incorrectType, "name is required.")
        }
        guard let name = nameValue.stringValue else {
            throw ParseError(.incorrectType, "schema mismatch for _Role.name; expected String but got \(nameValue.typeName)")
        }
        guard !name.isEmpty, name.count <= 256,
              name.unicodeScalars.allSatisfy({ $0.isASCIILetter || ("0"..."9").contains($0) || "_- ".unicodeScalars.contains($0) }) else {
            throw ParseError(.invalidRoleName, "A role's name can only contain alphanumeric characters, _, -, and spaces.")
        }
        guard let aclValue = body.removeValue(forKey: "ACL"), !aclValue.isNull else {
            throw ParseError(.incorrectType, "ACL is required.")
        }
        let acl = try ACLValidator.validate(aclValue)
        let users = try body.removeValue(forKey: "users").map { try RoleRelationChange($0, className: "_User") }
        let roles = try body.removeValue(forKey: "roles").map { try RoleRelationChange($0, className: "_Role") }
        let customId = try body.removeValue(forKey: "objectId").map { value throws(ParseError) -> String in
            guard allowCustomObjectId else { throw ParseError(.invalidKeyName, "objectId is an invalid field name.") }
            return try ObjectIdField.custom(value)
        }
        let fields = try plainFields(body)
        let id = customId ?? ObjectId.make()
        let now = Date.nowMillis
        do {
            try await pool.transaction { connection in
                _ = try await connection.query("""
                    INSERT INTO roles (id, name, acl, fields, created_at, updated_at) VALUES ($1, $2, $3::jsonb, $4::jsonb, $5, $5)
                    """, [id, name, acl.compactText, JSONValue.object(fields).compactText, now])
                try await Self.apply(users, roles, roleId: id, on: connection)
                try await AuthEvents.roleChanged(id, change: "created", on: connection)
            }
        } catch {
            throw UserStore.uniquenessError(error)
        }
        return AuthResponses.created(["objectId": .string(id), "createdAt": AuthResponses.date(now)],
                                     location: "\(request.serverURL)/roles/\(id)")
    }

    func get(_ request: AuthRequest, id: String) async throws -> RESTResponse {
        guard let role = try await find(id: id), request.groups.canRead(role.acl) else {
            throw ParseError(.objectNotFound, "Object not found.")
        }
        return AuthResponses.ok(role.json)
    }

    func update(_ request: AuthRequest, id: String) async throws -> RESTResponse {
        try request.requireWritable("update")
        var body = try request.body()
        guard let role = try await find(id: id), request.groups.canWrite(role.acl) else {
            throw ParseError(.objectNotFound, "Object not found.")
        }
        if let name = body.removeValue(forKey: "name"), name.stringValue != role.name {
            throw ParseError(.changedImmutableField, "A role's name can only be set before it has been saved.")
        }
        let acl = try body.removeValue(forKey: "ACL").map(ACLValidator.validate)
        let users = try body.removeValue(forKey: "users").map { try RoleRelationChange($0, className: "_User") }
        let roles = try body.removeValue(forKey: "roles").map { try RoleRelationChange($0, className: "_Role") }
        var unset: [String] = []
        for (key, value) in body where value["__op"]?.stringValue == "Delete" {
            unset.append(key)
            body[key] = nil
        }
        let fields = try plainFields(body)
        let now = Date.nowMillis
        let removedFields = "{" + unset.joined(separator: ",") + "}"
        try await pool.transaction { connection in
            _ = try await connection.query("""
                UPDATE roles SET acl = COALESCE($2::jsonb, acl), fields = (fields - $3::text[]) || $4::jsonb, updated_at = $5
                WHERE id = $1
                """, [id, acl?.compactText, removedFields, JSONValue.object(fields).compactText, now])
            try await Self.apply(users, roles, roleId: id, on: connection)
            if users != nil || roles != nil { try await AuthEvents.roleChanged(id, change: "members", on: connection) }
        }
        return AuthResponses.ok(["updatedAt": AuthResponses.date(now)])
    }

    func delete(_ request: AuthRequest, id: String) async throws -> RESTResponse {
        try request.requireWritable("delete")
        guard let role = try await find(id: id), request.groups.canWrite(role.acl) else {
            throw ParseError(.objectNotFound, "Object not found for delete.")
        }
        try await pool.transaction { connection in
            _ = try await connection.query("DELETE FROM roles WHERE id = $1", [id])
            try await AuthEvents.roleChanged(id, change: "deleted", on: connection)
        }
        return AuthResponses.empty
    }

    func query(_ request: AuthRequest) async throws -> RESTResponse {
        let groups = request.groups
        let query = TableQuery(table: "roles", columns: RoleRecord.columns, mapping: RoleFieldMapping(foreign: request.foreign),
                               options: try TableQuery.options(request))
        let (rows, count) = try await query.run(on: pool) { translator in
            groups.readConditions(aclColumn: "t0.acl", sql: &translator.parameters)
        }
        return query.answer(rows.map { RoleRecord($0).json }, count: count)
    }

    private func find(id: String) async throws -> RoleRecord? {
        try await pool.query("SELECT \(RoleRecord.columns) FROM roles WHERE id = $1", [id]).first.map(RoleRecord.init)
    }

    private func plainFields(_ body: [String: JSONValue]) throws -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for (key, value) in body {
            if ["objectId", "createdAt", "updatedAt"].contains(key) {
                if key == "objectId" { throw ParseError(.invalidKeyName, "objectId is an invalid field name.") }
                continue
            }
            try FieldName.check(key)
            if let operation = value["__op"]?.stringValue {
                throw ParseError(.invalidJSON, "The \(operation) operation is not supported on _Role fields yet.")
            }
            fields[key] = value
        }
        return fields
    }

    private static func apply(_ users: RoleRelationChange?, _ roles: RoleRelationChange?, roleId: String,
                              on connection: PostgresConnection) async throws {
        if let users {
            for userId in users.added {
                // Unknown users are skipped, as a relation to a missing object is dropped on read in parse-server.
                _ = try await connection.query("""
                    INSERT INTO role_users (role_id, user_id) SELECT $1, id FROM users WHERE id = $2 ON CONFLICT DO NOTHING
                    """, [roleId, userId])
            }
            for userId in users.removed {
                _ = try await connection.query("DELETE FROM role_users WHERE role_id = $1 AND user_id = $2", [roleId, userId])
            }
        }
        if let roles {
            for child in roles.added where child != roleId {
                _ = try await connection.query("""
                    INSERT INTO role_roles (parent_id, child_id) SELECT $1, id FROM roles WHERE id = $2 ON CONFLICT DO NOTHING
                    """, [roleId, child])
            }
            for child in roles.removed {
                _ = try await connection.query("DELETE FROM role_roles WHERE parent_id = $1 AND child_id = $2", [roleId, child])
            }
        }
    }
}
