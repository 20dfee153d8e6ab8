import ParseWire
import Query
import Storage

/// Indexes for the fields queries sort and filter on, made the first time a query needs them, so that
/// `order=name&limit=25` on a large class reads 25 index entries instead of the whole table.
enum IndexManager {
    static let indexableKinds: Set<FieldType.Kind> = [.string, .number, .boolean, .date, .pointer, .file]

    static func ensureIndexes(for fields: [String], schema: ClassSchema, on connection: PostgresConnection) async throws {
        var seen = Set<String>()
        for field in fields where seen.insert(field).inserted && field != "objectId"
            && !InstallationTable.takesNoQueryIndex(field, className: schema.className) {
            guard let type = schema.type(of: field) else { continue }
            for index in indexes(field, type) where schema.indexes[index.name] == nil {
                do {
                    try await create(index.name, expression: index.expression, method: index.method,
                                     spec: .object([field: index.kind]), schema: schema, on: connection)
                } catch let error as PostgresError where !error.isConnectionFailure {
                    // Another replica building the same index at this moment: the query works without it meanwhile.
                    continue
                }
            }
        }
    }

    /// A GIN index per searched field and language, on the expression `$text` compares with.
    static func ensureTextIndexes(for searches: [ObjectReader.TextSearch], schema: ClassSchema,
                                  on connection: PostgresConnection) async throws {
        for search in Set(searches) where schema.type(of: search.field)?.kind == .string {
            let name = search.language == "english" ? "\(search.field)_text" : "\(search.field)_text_\(search.language)"
            guard schema.indexes[name] == nil, WhereTranslator.textLanguages.contains(search.language) else { continue }
            do {
                try await create(name, expression: "to_tsvector('\(search.language)'::regconfig, \(Names.quoted(search.field)))",
                                 method: "gin", spec: .object([search.field: .string("text")]), schema: schema, on: connection)
            } catch let error as PostgresError where !error.isConnectionFailure {
                continue
            }
        }
    }

    /// The indexes a query on `field` wants: a B-tree for plain values; for a GeoPoint a GiST on the point (boxes,
    /// polygons) and one on its place on the sphere (`parse_geo_unit`: distances); for a Polygon a GiST.
    private static func indexes(_ field: String, _ type: FieldType) -> [(name: String, expression: String, method: String, kind: JSONValue)] {
        let column = Names.quoted(field)
        switch type.kind {
        case _ where indexableKinds.contains(type.kind): return [("\(field)_1", column, "btree", .number(1))]
        case .geoPoint:
            return [("\(field)_2d", column, "gist", .string("2d")),
                    ("\(field)_2dsphere", "public.parse_geo_unit(\(column))", "gist", .string("2dsphere"))]
        case .polygon: return [("\(field)_2dsphere", column, "gist", .string("2dsphere"))]
        default: return []
        }
    }

    /// Creates `name` on `fields` (each ascending) and records it in the class's schema.
    static func create(_ name: String, fields: [String], schema: ClassSchema, on connection: PostgresConnection) async throws {
        let spec = JSONValue.object(Dictionary(uniqueKeysWithValues: fields.map { ($0, JSONValue.number(1)) }))
        try await create(name, expression: fields.map(Names.quoted).joined(separator: ", "), method: "btree", spec: spec,
                         schema: schema, on: connection)
    }

    /// Creates `name` over `expression` (validated names and fixed SQL only) and records `spec` in the schema.
    static func create(_ name: String, expression: String, method: String, spec: JSONValue, schema: ClassSchema,
                       on connection: PostgresConnection) async throws {
        _ = try await connection.query(
            "CREATE INDEX IF NOT EXISTS \(Names.quoted(physicalName(name, className: schema.className))) ON \(Names.table(schema.className)) USING \(method) (\(expression))")
        _ = try await connection.query(
            "UPDATE parse_schema SET indexes = indexes || jsonb_build_object($2::text, $3::jsonb) WHERE class_name = $1",
            [schema.className, name, spec.compactText])
    }

    static func drop(_ name: String, schema: ClassSchema, on connection: PostgresConnection) async throws {
        _ = try await connection.query("DROP INDEX IF EXISTS classes.\(Names.quoted(physicalName(name, className: schema.className)))")
        _ = try await connection.query("UPDATE parse_schema SET indexes = indexes - $2 WHERE class_name = $1",
                                       [schema.className, name])
    }

    /// Index names are unique per PostgreSQL schema, so they carry the class; at most 63 bytes.
    static func physicalName(_ name: String, className: String) -> String {
        let full = "\(className)_\(name)"
        guard full.utf8.count > 63 else { return full }
        var hash: UInt32 = 2_166_136_261
        for byte in full.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return String(full.prefix(50)) + "_" + String(hash, radix: 16)
    }
}
