import ServiceKit
import Contracts
import ParseWire
import Query
import Storage

/// Reads and grows `parse_schema` and the class tables. Growth happens under a per-class transaction lock,
/// inside the transaction of the write that needs it, so a field's type is fixed exactly once.
enum SchemaStore {
    /// Changes whenever anything in the class's row changes; read statements return it to validate cached schemas.
    static let fingerprintSQL = "md5(fields::text || COALESCE(class_level_permissions::text, '') || indexes::text)"

    /// `cache`: where to keep what was read, for the readers that use it (`cachedOrLoad`).
    static func load(_ className: String, on connection: PostgresConnection,
                     cache: SchemaCache? = nil) async throws -> ClassSchema? {
        let statement = loadStatement(className)
        return loaded(className, try await connection.query(statement.sql, statement.parameters), cache: cache)
    }

    /// `load`'s statement, for sending with others (`PostgresConnection.pipeline`); `loaded` reads its result.
    static func loadStatement(_ className: String) -> PostgresStatement {
        PostgresStatement(
            "SELECT class_name, fields::text AS fields, class_level_permissions::text AS class_level_permissions, indexes::text AS indexes, \(fingerprintSQL) AS fingerprint FROM parse_schema WHERE class_name = $1",
            [className])
    }

    /// The schema `loadStatement` read (nil: no such class), kept in `cache` when given.
    static func loaded(_ className: String, _ result: PostgresResult, cache: SchemaCache? = nil) -> ClassSchema? {
        let schema = result.first.map(ClassSchema.init(row:))
        if let cache {
            if let schema { cache.set(schema) } else { cache.remove(className) }
        }
        return schema
    }

    /// The cached schema when there is one (the caller validates it with the fingerprint), else a fresh one, kept.
    static func cachedOrLoad(_ className: String, cache: SchemaCache, on connection: PostgresConnection) async throws -> ClassSchema? {
        if let cached = cache.get(className) { return cached }
        return try await load(className, on: connection, cache: cache)
    }

    /// Wraps a read statement so that its rows come with the class's current fingerprint and the trigger
    /// registrations' generation (`__hooks`, see `CloudTriggers.requireCurrent`): one row with NULL columns when the
    /// statement has none. `classParameter` is the placeholder bound to the class name.
    static func withFingerprint(_ sql: String, classParameter: String) -> String {
        "SELECT s.fingerprint AS \"__fingerprint\", s.hooks AS \"__hooks\", r.* FROM (SELECT \(fingerprintSQL) AS fingerprint, \(CacheGenerations.subquery(AdvanceCacheGeneration.hooks)) AS hooks FROM parse_schema WHERE class_name = \(classParameter)) AS s LEFT JOIN LATERAL (\(sql)) AS r ON TRUE"
    }

    static func loadAll(on connection: PostgresConnection) async throws -> [ClassSchema] {
        let result = try await connection.query(
            "SELECT class_name, fields::text AS fields, class_level_permissions::text AS class_level_permissions, indexes::text AS indexes, \(fingerprintSQL) AS fingerprint FROM parse_schema ORDER BY class_name")
        return result.rows.map(ClassSchema.init(row:))
    }

    /// Checks `wanted` against the class's recorded types (111 on a mismatch) and adds what is missing, creating
    /// the class if needed. Must run inside a transaction.
    static func ensure(_ className: String, fields wanted: [String: FieldType], current: ClassSchema?,
                       on connection: PostgresConnection) async throws -> ClassSchema {
        if let current, try missing(wanted, in: current).isEmpty { return current }
        _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtext($1))", ["posts.class." + className])
        var schema: ClassSchema
        if let locked = try await load(className, on: connection) {
            schema = locked
        } else {
            schema = ClassSchema(className: className)
            try await createClass(className, on: connection)
        }
        let additions = try missing(wanted, in: schema)
        guard !additions.isEmpty else { return schema }
        try checkColumnCount(schema, adding: additions)
        for (name, type) in additions.sorted(by: { $0.key < $1.key }) {
            try await addColumn(name, type, className: className, on: connection)
            schema.fields[name] = type
        }
        _ = try await connection.query("UPDATE parse_schema SET fields = $2::jsonb WHERE class_name = $1",
                                       [className, schema.fieldsJSONText])
        return schema
    }

    /// PostgreSQL's tables have at most 1,600 columns (dropped ones included): a write that would pass that is
    /// refused before any column is added, and with room left for the class to change later.
    static let maximumColumns = 1500

    static func checkColumnCount(_ schema: ClassSchema, adding additions: [String: FieldType]) throws(ParseError) {
        let columns = schema.fields.values.filter { $0.columnType != nil }.count
            + additions.values.filter { $0.columnType != nil }.count
        guard columns <= maximumColumns else {
            throw ParseError(.invalidSchemaOperation,
                             "Too many fields: a class may have at most \(maximumColumns) fields besides its relations.")
        }
    }

    /// The fields of `wanted` the class lacks; throws 111 when a field exists with another type.
    static func missing(_ wanted: [String: FieldType], in schema: ClassSchema) throws(ParseError) -> [String: FieldType] {
        var additions: [String: FieldType] = [:]
        for (name, type) in wanted {
            if let existing = schema.type(of: name) {
                guard existing == type else {
                    throw ParseError(.incorrectType,
                                     "schema mismatch for \(schema.className).\(name); expected \(existing.description) but got \(type.description)")
                }
            } else {
                additions[name] = type
            }
        }
        return additions
    }

    static func createClass(_ className: String, on connection: PostgresConnection) async throws {
        _ = try await connection.query("""
            CREATE TABLE IF NOT EXISTS \(Names.table(className)) (
                "objectId" text PRIMARY KEY, "createdAt" timestamptz NOT NULL, "updatedAt" timestamptz NOT NULL,
                "_rperm" text[], "_wperm" text[])
            """)
        if className == InstallationTable.className {
            _ = try await connection.query(InstallationTable.storageSQL)
        }
        _ = try await connection.query("INSERT INTO parse_schema (class_name) VALUES ($1) ON CONFLICT DO NOTHING", [className])
    }

    private static func addColumn(_ name: String, _ type: FieldType, className: String,
                                  on connection: PostgresConnection) async throws {
        if let column = type.columnType {
            _ = try await connection.query(
                "ALTER TABLE \(Names.table(className)) ADD COLUMN IF NOT EXISTS \(Names.quoted(name)) \(column)")
            for statement in InstallationTable.afterAddingColumn(name, className: className) {
                _ = try await connection.query(statement)
            }
        } else if type.kind == .relation {
            let join = Names.joinTable(field: name, className: className)
            _ = try await connection.query(
                "CREATE TABLE IF NOT EXISTS \(join) (\"relatedId\" text NOT NULL, \"owningId\" text NOT NULL, PRIMARY KEY (\"owningId\", \"relatedId\"))")
        }
    }

    /// Drops a field's column (or join table) and its schema entry: `PUT /schemas` with `{"__op":"Delete"}`.
    static func dropField(_ name: String, from schema: ClassSchema, on connection: PostgresConnection) async throws -> ClassSchema {
        var schema = schema
        guard let type = schema.fields[name] else { return schema }
        if type.columnType != nil {
            _ = try await connection.query("ALTER TABLE \(Names.table(schema.className)) DROP COLUMN IF EXISTS \(Names.quoted(name))")
        } else if type.kind == .relation {
            _ = try await connection.query("DROP TABLE IF EXISTS \(Names.joinTable(field: name, className: schema.className))")
        }
        schema.fields[name] = nil
        _ = try await connection.query("UPDATE parse_schema SET fields = $2::jsonb WHERE class_name = $1",
                                       [schema.className, schema.fieldsJSONText])
        return schema
    }
}
