import Foundation
import ParseWire
import Query
import Runtime
import Storage

/// Creates, updates and deletes objects. Every method runs inside the caller's transaction, which also carries
/// any schema growth and the event of the change.
struct ObjectWriter {
    let context: RequestContext
    let connection: PostgresConnection
    /// Whether a create may use the schema this process read last (`cachedSchema`): only in a transaction of the
    /// create's own, which `createInItsOwnTransaction` runs again when a statement made from that schema fails.
    var mayUseCachedSchema = false

    struct Created: Sendable { var objectId: String; var body: [String: JSONValue] }

    /// `known`: the class's schema as this transaction read it already, which saves reading it again.
    func create(_ className: String, body: [String: JSONValue], schema known: ClassSchema? = nil) async throws -> Created {
        let plan = try Self.plan(create: body, context: context)
        if known == nil, mayUseCachedSchema, let cached = Self.cachedSchema(forCreateIn: className, plan, context: context) {
            try PlatformClasses.checkFields(className, plan.wantedTypes)
            do {
                if let created = try await insert(className, plan, schema: cached, ifStill: cached.fingerprint) { return created }
            } catch let error as PostgresError where FailureKind.of(error) == .deterministic {
                // A column or table the schema names may be gone: the failure took the transaction with it.
                context.schemas.remove(className)
                throw StaleSchema(cause: error)
            }
        }
        var current = known
        if current == nil { current = try await SchemaStore.load(className, on: connection, cache: context.schemas) }
        if current == nil { try await context.mayUseMissingClass(className, on: connection) }
        try ClassPermissions.check("create", schema: current, identity: context.identity)
        let schema = try await grow(className, current: current, plan: plan)
        // Without `ifStill` an INSERT ... VALUES answers its row or fails.
        guard let created = try await insert(className, plan, schema: schema) else { throw ParseError.internalError }
        return created
    }

    /// A statement made from the cached schema failed (see `mayUseCachedSchema`); the cache no longer holds it.
    struct StaleSchema: Error { var cause: PostgresError }

    /// A create in a transaction of its own, which may use the cached schema; when a statement made from it
    /// fails, the create runs once more, reading the schema, and a failure then is the create's own.
    static func createInItsOwnTransaction(_ className: String, body: [String: JSONValue], context: RequestContext,
                                          on connection: PostgresConnection) async throws -> Created {
        @Sendable func create(mayUseCachedSchema: Bool) async throws -> Created {
            try await connection.transaction { connection in
                var writer = ObjectWriter(context: context, connection: connection)
                writer.mayUseCachedSchema = mayUseCachedSchema
                return try await writer.create(className, body: body)
            }
        }
        do {
            return try await create(mayUseCachedSchema: true)
        } catch is StaleSchema {
            return try await create(mayUseCachedSchema: false)
        }
    }

    /// A create in a transaction shared with the creates that arrive with it (`CreateBatcher`), when it needs
    /// nothing a shared one cannot give: the cached schema, no relation, no trigger, no claim of a request id, no
    /// transaction of the caller's. Nil when it cannot go so, or when the batch left it to run alone (nothing of it
    /// was written): the caller then creates it the usual way (`createInItsOwnTransaction`).
    static func createTogether(_ className: String, body: [String: JSONValue],
                               context: RequestContext) async throws -> Created? {
        guard let batcher = context.creates, context.once == nil,
              TransactionPreamble.current.map(\.hasCommitted) ?? true else { return nil }
        // Refused the same way, and before the same checks, as `create` would.
        let plan = try Self.plan(create: body, context: context)
        guard !plan.changesRelations, await context.triggers(of: className) == nil else {
            return nil
        }
        guard let cached = cachedSchema(forCreateIn: className, plan, context: context) else { return nil }
        try PlatformClasses.checkFields(className, plan.wantedTypes)
        let insert = try prepareInsert(className, plan, schema: cached, ifStill: cached.fingerprint)
        switch await batcher.create(insert.statement, finish: { connection, row in
            try await ObjectWriter(context: context, connection: connection).finish(insert, row: row)
        }) {
        case .created(let created): return created
        case .schemaChanged, .runAlone: return nil
        case .failed(let error): throw error
        }
    }

    /// A create's body checked and sorted, after the refusal of the read-only master key: the first steps of every
    /// create, alone or together.
    private static func plan(create body: [String: JSONValue], context: RequestContext) throws -> WritePlan {
        try ClassPermissions.refuseReadOnlyMaster(context.identity, "create")
        return try WritePlan(body, keepSystemFields: context.identity.isMaster,
                             customObjectId: context.configuration.allowCustomObjectId)
    }

    /// The schema this process read last, when it has every field the create sets (with their types) and allows
    /// the create: the create then needs no statement of its own to read it, and its INSERT checks that it is
    /// still the class's (`ifStill`). Nil, or a change since, sends the create the usual way, which decides
    /// everything again on the schema it reads in the transaction, errors included.
    private static func cachedSchema(forCreateIn className: String, _ plan: WritePlan,
                                     context: RequestContext) -> ClassSchema? {
        guard let cached = context.schemas.get(className), !cached.fingerprint.isEmpty,
              (try? SchemaStore.missing(plan.wantedTypes, in: cached))?.isEmpty == true,
              (try? SchemaStore.missing(PlatformClasses.defaultFields[className] ?? [:], in: cached))?.isEmpty == true,
              (try? ClassPermissions.check("create", schema: cached, identity: context.identity)) != nil
        else { return nil }
        return cached
    }

    /// Inserts the object, its relations and its event. With `ifStill`, only while the class's schema has that
    /// fingerprint: nil when it has changed, and then nothing was written.
    private func insert(_ className: String, _ plan: WritePlan, schema: ClassSchema,
                        ifStill fingerprint: String? = nil) async throws -> Created? {
        let insert = try Self.prepareInsert(className, plan, schema: schema, ifStill: fingerprint)
        let inserted: PostgresResult
        do {
            inserted = try await connection.query(insert.statement.sql, insert.statement.parameters)
        } catch let error as PostgresError where error.sqlState == "23505" {
            throw ParseError(.duplicateValue, "A duplicate value for a field with unique values was provided")
        }
        guard let row = inserted.first else { return nil }
        return try await finish(insert, row: row)
    }

    /// A create's `INSERT`, made before it is sent: by this writer (`insert`), or with other creates' in one
    /// transaction (`CreateBatcher`).
    struct PreparedInsert: Sendable {
        var className: String
        var plan: WritePlan
        var schema: ClassSchema
        var statement: PostgresStatement
        var objectId: String
        var createdAt: Date
        /// The values the answer carries back (`WritePlan.isEchoed`).
        var echoed: [String: JSONValue]
    }

    static func prepareInsert(_ className: String, _ plan: WritePlan, schema: ClassSchema,
                              ifStill fingerprint: String?) throws -> PreparedInsert {
        let objectId = plan.objectId ?? ObjectId.make()
        let now = Self.now()
        let createdAt = plan.createdAt ?? now, updatedAt = plan.updatedAt ?? plan.createdAt ?? now
        var parameters = SQLParameters()
        var columns = ["\"objectId\"", "\"createdAt\"", "\"updatedAt\""]
        var values = [parameters.bind(objectId), parameters.bind(createdAt) + "::timestamptz",
                      parameters.bind(updatedAt) + "::timestamptz"]
        if let acl = plan.acl {
            columns += ["\"_rperm\"", "\"_wperm\""]
            values += [parameters.bindTextArray(acl.read), parameters.bindTextArray(acl.write)]
        }
        var echoed: [String: JSONValue] = [:]
        for (name, change) in plan.changes.sorted(by: { $0.key < $1.key }) {
            guard let type = schema.fields[name], type.columnType != nil,
                  let value = WritePlan.initialValue(change), !value.isNull else { continue }
            columns.append(Names.quoted(name))
            values.append(try ValueStorage.sql(value, type, &parameters))
            if WritePlan.isEchoed(change) { echoed[name] = value }
        }
        var source = "VALUES (\(values.joined(separator: ", ")))"
        if let fingerprint {
            // Every value but text ones carries its cast, so a SELECT gives the columns the types VALUES would.
            source = """
                SELECT \(values.joined(separator: ", ")) WHERE EXISTS (SELECT FROM parse_schema
                WHERE class_name = \(parameters.bind(className)) AND \(SchemaStore.fingerprintSQL) = \(parameters.bind(fingerprint)))
                """
        }
        let sql = "INSERT INTO \(Names.table(className)) (\(columns.joined(separator: ", "))) \(source) RETURNING \(ValueCodec.selectList(schema))"
        return PreparedInsert(className: className, plan: plan, schema: schema,
                              statement: PostgresStatement(sql, parameters.values), objectId: objectId,
                              createdAt: createdAt, echoed: echoed)
    }

    /// What follows the `INSERT` in the create's transaction, given the row it returned: the relations, the event
    /// and the afterSave trigger; answers the create's answer.
    func finish(_ insert: PreparedInsert, row: PostgresRow) async throws -> Created {
        let className = insert.className, objectId = insert.objectId
        try await applyRelations(insert.plan, className: className, objectId: objectId)
        let stored = context.codec.object(row, insert.schema)
        try await ObjectEvents.add(.created, className: className, objectId: objectId, object: stored,
                                   schema: insert.schema, on: connection)
        try await context.triggers(of: className)?.after(.afterSave, object: stored, on: connection)
        var response = insert.echoed
        response["objectId"] = .string(objectId)
        response["createdAt"] = .string(ParseDate.string(from: insert.createdAt))
        return Created(objectId: objectId, body: response)
    }

    func update(_ className: String, objectId: String, body: [String: JSONValue],
                schema known: ClassSchema? = nil) async throws -> [String: JSONValue] {
        try ClassPermissions.refuseReadOnlyMaster(context.identity, "update")
        let plan = try WritePlan(body, keepSystemFields: false)
        var loaded = known
        if loaded == nil { loaded = try await SchemaStore.load(className, on: connection) }
        guard let current = loaded else {
            try await context.mayUseMissingClass(className, on: connection)
            throw ParseError(.objectNotFound, "Object not found.")
        }
        try ClassPermissions.check("update", schema: current, identity: context.identity)
        let schema = try await grow(className, current: current, plan: plan)

        let updatedAt = Self.now()
        var parameters = SQLParameters()
        var assignments = ["\"updatedAt\" = \(parameters.bind(updatedAt))::timestamptz"]
        if plan.hasACL {
            if let acl = plan.acl {
                assignments.append("\"_rperm\" = \(parameters.bindTextArray(acl.read))")
                assignments.append("\"_wperm\" = \(parameters.bindTextArray(acl.write))")
            } else {
                assignments += ["\"_rperm\" = NULL", "\"_wperm\" = NULL"]
            }
        }
        for (name, change) in plan.changes.sorted(by: { $0.key < $1.key }) {
            guard let type = schema.fields[name], type.columnType != nil else { continue }
            let column = Names.quoted(name)
            let expression: String
            switch change {
            case .set(let value): expression = try ValueStorage.sql(value, type, &parameters)
            case .delete: expression = "NULL"
            case .increment(let amount): expression = "COALESCE(\(column), 0) + \(parameters.bind(amount))::double precision"
            case .add(let objects): expression = "COALESCE(\(column), '[]'::jsonb) || \(parameters.bind(JSONValue.array(objects).compactText))::jsonb"
            case .addUnique(let objects): expression = "posts_array_add_unique(\(column), \(parameters.bind(JSONValue.array(objects).compactText))::jsonb)"
            case .remove(let objects): expression = "posts_array_remove(\(column), \(parameters.bind(JSONValue.array(objects).compactText))::jsonb)"
            case .relation: continue
            }
            assignments.append("\(column) = \(expression)")
        }
        var conditions = ["\"objectId\" = \(parameters.bind(objectId))"]
        if let filter = AccessControl.writeFilter(context.identity, &parameters) { conditions.append(filter) }
        if let filter = PointerPermissions.restriction("update", schema: schema, identity: context.identity, alias: "", &parameters) {
            conditions.append(filter)
        }
        // The object before the change, locked until the transaction ends, for the event's `original`; sent with
        // the UPDATE, in one round trip.
        let results = try await connection.pipeline([
            PostgresStatement(
                "SELECT \(ValueCodec.selectList(schema)) FROM \(Names.table(className)) WHERE \"objectId\" = $1 FOR UPDATE",
                [objectId]),
            PostgresStatement("""
                UPDATE \(Names.table(className)) SET \(assignments.joined(separator: ", "))
                WHERE \(conditions.joined(separator: " AND ")) RETURNING \(ValueCodec.selectList(schema))
                """, parameters.values),
        ])
        let before = results[0]
        guard let row = results[1].first else { throw ParseError(.objectNotFound, "Object not found.") }
        try await applyRelations(plan, className: className, objectId: objectId)
        let stored = context.codec.object(row, schema)
        let original = before.first.map { context.codec.object($0, schema) }
        try await ObjectEvents.add(.updated, className: className, objectId: objectId, object: stored,
                                   original: original, schema: schema, on: connection)
        try await context.triggers(of: className)?.after(.afterSave, object: stored, original: original, on: connection)

        var response: [String: JSONValue] = ["updatedAt": .string(ParseDate.string(from: updatedAt))]
        for (name, change) in plan.changes where WritePlan.isEchoed(change) {
            response[name] = stored[name] ?? .null
        }
        return response
    }

    func delete(_ className: String, objectId: String) async throws {
        try ClassPermissions.refuseReadOnlyMaster(context.identity, "delete")
        guard let schema = try await SchemaStore.load(className, on: connection) else {
            try await context.mayUseMissingClass(className, on: connection)
            throw ParseError(.objectNotFound, "Object not found.")
        }
        try ClassPermissions.check("delete", schema: schema, identity: context.identity)
        var parameters = SQLParameters()
        var conditions = ["\"objectId\" = \(parameters.bind(objectId))"]
        if let filter = AccessControl.writeFilter(context.identity, &parameters) { conditions.append(filter) }
        if let filter = PointerPermissions.restriction("delete", schema: schema, identity: context.identity, alias: "", &parameters) {
            conditions.append(filter)
        }
        let result = try await connection.query(
            "DELETE FROM \(Names.table(className)) WHERE \(conditions.joined(separator: " AND ")) RETURNING \(ValueCodec.selectList(schema))",
            parameters.values)
        guard let row = result.first else { throw ParseError(.objectNotFound, "Object not found.") }
        for (name, type) in schema.fields where type.kind == .relation {
            _ = try await connection.query(
                "DELETE FROM \(Names.joinTable(field: name, className: className)) WHERE \"owningId\" = $1", [objectId])
        }
        let deleted = context.codec.object(row, schema)
        try await ObjectEvents.add(.deleted, className: className, objectId: objectId, object: deleted, schema: schema,
                                   on: connection)
        try await context.triggers(of: className)?.after(.afterDelete, object: deleted, on: connection)
    }

    /// Adds the fields the write introduces, checking `addField` when the class already exists.
    private func grow(_ className: String, current: ClassSchema?, plan: WritePlan) async throws -> ClassSchema {
        if let current, !(try SchemaStore.missing(plan.wantedTypes, in: current)).isEmpty {
            try ClassPermissions.check("addField", schema: current, identity: context.identity)
        }
        var wanted = plan.wantedTypes
        try PlatformClasses.checkFields(className, wanted)
        if let defaults = PlatformClasses.defaultFields[className] {
            // A system class gets its default fields with the first write, whatever the write sets.
            _ = try SchemaStore.missing(wanted, in: ClassSchema(className: className, fields: defaults))
            wanted.merge(defaults) { _, standard in standard }
        }
        return try await SchemaStore.ensure(className, fields: wanted, current: current, on: connection)
    }

    private func applyRelations(_ plan: WritePlan, className: String, objectId: String) async throws {
        for (name, change) in plan.changes {
            guard case .relation(let added, let removed) = change else { continue }
            let join = Names.joinTable(field: name, className: className)
            for id in added {
                _ = try await connection.query(
                    "INSERT INTO \(join) (\"relatedId\", \"owningId\") VALUES ($1, $2) ON CONFLICT DO NOTHING", [id, objectId])
            }
            if !removed.isEmpty {
                var parameters = SQLParameters()
                let owner = parameters.bind(objectId)
                let ids = parameters.bindTextArray(removed)
                _ = try await connection.query(
                    "DELETE FROM \(join) WHERE \"owningId\" = \(owner) AND \"relatedId\" = ANY(\(ids))", parameters.values)
            }
        }
    }

    /// Now, to the millisecond Parse dates carry, so the stored and the answered value agree.
    static func now() -> Date {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}
