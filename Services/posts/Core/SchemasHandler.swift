import Contracts
import ParseWire
import Query
import Storage

/// `/schemas` (master key only) and `/purge`: reading and shaping classes, their fields, class-level
/// permissions and indexes.
struct SchemasHandler {
    let context: RequestContext

    static let masterKeyRequired = RESTResponse(status: 403, body: #"{"error":"unauthorized: master key is required"}"#)

    func handle(_ request: RESTRequest, className: String?, on connection: PostgresConnection) async throws -> RESTResponse {
        let identity = context.identity
        guard identity.isMaster || (identity.isReadOnlyMaster && request.method == "GET") else {
            if identity.isReadOnlyMaster {
                // parse-server's SchemasRouter words these by the schema operation.
                let operation = ["POST": "create", "PUT": "update", "DELETE": "delete"][request.method] ?? "update"
                throw ParseError(.operationForbidden, "read-only masterKey isn't allowed to \(operation) a schema.")
            }
            return Self.masterKeyRequired
        }
        if let className, let schema = AuthClassSchemas.all[className] {
            guard request.method == "GET" else {
                throw ParseError(.invalidSchemaOperation, "The fields of \(className) are kept by the auth service; they cannot be changed here.")
            }
            return PostsHandler.json(200, schema.json)
        }
        if let className {
            // The platform classes kept here (`_Installation`, `_PushStatus`...) can be read and given fields.
            if request.method == "GET" || request.method == "PUT" {
                try PlatformClasses.requireClassName(className)
            } else {
                try Names.requireClassName(className)
            }
        }
        if request.method != "GET", context.configuration.schema?.lockSchemas == true {
            throw ParseError(.operationForbidden, "Cannot perform this operation when schemas options is used.")
        }
        switch (request.method, className) {
        case ("GET", nil):
            let stored = try await SchemaStore.loadAll(on: connection)
            let auth = AuthClassSchemas.all.keys.sorted().compactMap { AuthClassSchemas.all[$0] }
            return PostsHandler.json(200, .object(["results": .array((auth + stored).map(\.json))]))
        case ("GET", let name?):
            return PostsHandler.json(200, try await Self.existing(name, on: connection).json)
        case ("POST", _):
            let body = try RequestBody.object(request.body)
            let bodyName = body["className"]?.stringValue
            if let className, let bodyName, bodyName != className {
                throw ParseError(.invalidClassName, "Class name mismatch between \(bodyName) and \(className).")
            }
            guard let name = className ?? bodyName else {
                throw ParseError(.missingRequiredField, "POST /schemas needs a class name.")
            }
            try Names.requireClassName(name)
            let schema = try await connection.transaction { connection in
                if try await SchemaStore.load(name, on: connection) != nil {
                    throw ParseError(.invalidClassName, "Class \(name) already exists.")
                }
                return try await Self.apply(body, to: nil, className: name, on: connection)
            }
            return PostsHandler.json(200, schema.json)
        case ("PUT", let name?):
            let body = try RequestBody.object(request.body)
            let schema = try await connection.transaction { connection in
                let current = try await Self.existing(name, on: connection)
                return try await Self.apply(body, to: current, className: name, on: connection)
            }
            return PostsHandler.json(200, schema.json)
        case ("DELETE", let name?):
            try await connection.transaction { connection in
                guard let schema = try await SchemaStore.load(name, on: connection) else { return }
                let count = try await connection.query("SELECT count(*) AS count FROM \(Names.table(name))").first?.int("count") ?? 0
                guard count == 0 else {
                    throw ParseError(.invalidSchemaOperation, "Class \(name) is not empty, contains \(count) objects, cannot drop schema.")
                }
                for (field, type) in schema.fields where type.kind == .relation {
                    _ = try await connection.query("DROP TABLE IF EXISTS \(Names.joinTable(field: field, className: name))")
                }
                _ = try await connection.query("DROP TABLE IF EXISTS \(Names.table(name))")
                _ = try await connection.query("DELETE FROM parse_schema WHERE class_name = $1", [name])
            }
            return PostsHandler.json(200, .object([:]))
        default:
            throw ParseError.noSuchRoute(request.method, "/\(request.path)")
        }
    }

    /// `DELETE /purge/<C>`: removes every object of the class, keeping the class.
    func purge(_ className: String, on connection: PostgresConnection) async throws -> RESTResponse {
        if context.identity.isReadOnlyMaster && !context.identity.isMaster {
            throw ParseError(.operationForbidden, "read-only masterKey isn't allowed to purge a schema.")
        }
        guard context.identity.isMaster else { return Self.masterKeyRequired }
        try Names.requireClassName(className)
        if try await SchemaStore.load(className, on: connection) != nil {
            _ = try await connection.query("DELETE FROM \(Names.table(className))")
        }
        return PostsHandler.json(200, .object([:]))
    }

    private static func existing(_ name: String, on connection: PostgresConnection) async throws -> ClassSchema {
        guard let schema = try await SchemaStore.load(name, on: connection) else {
            throw ParseError(.invalidClassName, "Class \(name) does not exist.")
        }
        return schema
    }

    /// Creates or changes a class from a `/schemas` body: fields, class-level permissions, indexes.
    static func apply(_ body: [String: JSONValue], to current: ClassSchema?, className: String,
                       on connection: PostgresConnection) async throws -> ClassSchema {
        var additions: [String: FieldType] = [:], deletions: [String] = []
        for (name, spec) in body["fields"]?.objectValue ?? [:] {
            guard Names.isValidFieldName(name) else { throw ParseError(.invalidKeyName, "invalid field name: \(name)") }
            if spec["__op"]?.stringValue == "Delete" {
                guard current?.fields[name] != nil else {
                    throw ParseError(.invalidSchemaOperation, "Field \(name) does not exist, cannot delete.")
                }
                deletions.append(name)
                continue
            }
            if current?.type(of: name) != nil || ClassSchema.systemFields[name] != nil {
                throw ParseError(.invalidSchemaOperation, "Field \(name) exists, cannot update.")
            }
            additions[name] = try Self.fieldType(spec)
        }
        var schema = current
        if schema == nil { try await SchemaStore.createClass(className, on: connection) }
        for name in deletions {
            schema = try await SchemaStore.dropField(name, from: schema!, on: connection)
        }
        schema = try await SchemaStore.ensure(className, fields: additions, current: schema, on: connection)
        if let permissions = body["classLevelPermissions"] {
            guard permissions.objectValue != nil || permissions.isNull else {
                throw ParseError(.invalidJSON, "classLevelPermissions must be an object.")
            }
            _ = try await connection.query("UPDATE parse_schema SET class_level_permissions = $2::jsonb WHERE class_name = $1",
                                           [className, permissions.isNull ? nil : permissions.compactText])
        }
        if let indexes = body["indexes"]?.objectValue {
            // parse-server on PostgreSQL records the primary key's index as `_id_` the first time a class's
            // indexes are set, so a class keeps an `indexes` entry after its last own index is deleted.
            _ = try await connection.query(
                "UPDATE parse_schema SET indexes = '{\"_id_\":{\"_id\":1}}'::jsonb WHERE class_name = $1 AND indexes = '{}'::jsonb",
                [className])
            for (name, spec) in indexes.sorted(by: { $0.key < $1.key }) {
                guard Names.isPlainIdentifier(name) else { throw ParseError(.invalidKeyName, "invalid index name: \(name)") }
                guard let reloaded = try await SchemaStore.load(className, on: connection) else { break }
                let exists = reloaded.indexes[name] != nil
                if spec["__op"]?.stringValue == "Delete" {
                    guard exists else { throw ParseError(.invalidQuery, "Index \(name) does not exist, cannot delete.") }
                    try await IndexManager.drop(name, schema: reloaded, on: connection)
                    continue
                }
                guard !exists else { throw ParseError(.invalidQuery, "Index \(name) exists, cannot update.") }
                let fields = spec.objectValue?.keys.sorted() ?? []
                guard !fields.isEmpty, fields.allSatisfy({ reloaded.type(of: $0)?.columnType != nil }) else {
                    throw ParseError(.invalidQuery, "Index \(name) names a field the class does not have.")
                }
                try await IndexManager.create(name, fields: fields, schema: reloaded, on: connection)
            }
        }
        return try await existing(className, on: connection)
    }

    static func fieldType(_ spec: JSONValue) throws(ParseError) -> FieldType {
        guard let name = spec["type"]?.stringValue else { throw ParseError(.incorrectType, "invalid field type: \(spec.compactText)") }
        guard let kind = FieldType.Kind(rawValue: name), kind != .acl else {
            throw ParseError(.incorrectType, "invalid field type: \(name)")
        }
        if kind == .pointer || kind == .relation {
            guard let target = spec["targetClass"]?.stringValue else {
                throw ParseError(.missingRequiredField, "type \(name) needs a class name")
            }
            guard Names.isValidClassName(target) || target.hasPrefix("_") && Names.isValidClassName(String(target.dropFirst())) else {
                throw ParseError(.invalidClassName, "invalid className: \(target)")
            }
            return FieldType(kind, targetClass: target)
        }
        return FieldType(kind)
    }
}
