import Contracts
import ParseWire
import Query
import Storage

/// `GET /aggregate/<C>` (master key only, as in parse-server): a `pipeline` of stages, or `distinct=<field>` with an
/// optional `where`, each answered by one SQL statement.
struct AggregateHandler {
    let context: RequestContext
    let connection: PostgresConnection

    /// Parameters that are options of the call rather than stages.
    static let optionKeys: Set<String> = ["distinct", "where", "hint", "explain", "comment", "readPreference", "pipeline"]

    func handle(_ request: RESTRequest, className: String) async throws -> RESTResponse {
        guard request.method == "GET" || request.method == "POST" else {
            throw ParseError(.commandUnavailable, "Cannot \(request.method) /\(request.path): no such route.")
        }
        guard context.identity.isMaster || context.identity.isReadOnlyMaster else { return SchemasHandler.masterKeyRequired }
        try Names.requireClassName(className)
        let options = try QueryOptions.merge(query: request.query, body: request.body)
        var clause: [String: JSONValue] = [:]
        switch options["where"] {
        case nil, .null?: break
        case .object(let value)?: clause = value
        default: throw ParseError(.invalidQuery, "Improper encode of parameter where: it must be a JSON object.")
        }
        let explain = try options["explain"].map(QueryOptions.flag) ?? false
        guard let schema = try await SchemaStore.load(className, on: connection) else {
            return PostsHandler.json(200, .object(["results": .array([])]))
        }
        if let hint = options["hint"] { try QueryHint.check(hint, schema: schema) }
        let mapping = ClassFieldMapping(schema: schema, identity: context.identity) { [connection] name in
            try await SchemaStore.load(name, on: connection)
        }
        if let distinct = options["distinct"] {
            let field = distinct.stringValue ?? distinct.compactText
            return PostsHandler.json(200, .object(["results": try await self.distinct(field, clause, schema, mapping, explain)]))
        }
        let stages = try AggregatePipeline.stages(options["pipeline"] ?? .object(options.filter { !Self.optionKeys.contains($0.key) }))
        var pipeline = AggregatePipeline(schema: schema)
        if !clause.isEmpty { try await pipeline.apply("$match", .object(clause), mapping: mapping) }
        for (name, body) in stages { try await pipeline.apply(name, body, mapping: mapping) }
        try await IndexManager.ensureIndexes(for: pipeline.translator.filteredFields, schema: schema, on: connection)
        let rendered = pipeline.columns.map { "\(Self.render("out.\(Names.quoted($0.name))", $0.type)) AS \(Names.quoted($0.name))" }
        let sql = "SELECT \(rendered.joined(separator: ", ")) FROM (\(pipeline.current.sql)) AS out"
        if explain { return PostsHandler.json(200, .object(["results": try await plan(sql, pipeline.translator.parameters.values)])) }
        let rows = try await connection.query(sql, pipeline.translator.parameters.values).rows
        let codec = context.codec
        let results: [JSONValue] = rows.map { row in
            var object: [String: JSONValue] = ["objectId": .null]
            for column in pipeline.columns {
                guard let text = row[column.name] else { continue }
                if column.type.kind == .date && (column.name == "createdAt" || column.name == "updatedAt") {
                    object[column.name] = .string(text)
                } else if let value = codec.decode(text, column.type) {
                    object[column.name] = value
                }
            }
            return .object(object)
        }
        return PostsHandler.json(200, .object(["results": .array(results)]))
    }

    /// A column as the text `ValueCodec.decode` reads.
    static func render(_ sql: String, _ type: FieldType) -> String {
        switch type.kind {
        case .date: ValueCodec.dateText(sql)
        case .object, .array, .bytes: sql + "::text"
        default: sql
        }
    }

    /// parse-server's `EXPLAIN` answer on PostgreSQL: the plan as JSON.
    func plan(_ sql: String, _ parameters: [(any PostgresBindable)?]) async throws -> JSONValue {
        let rows = try await connection.query("EXPLAIN (FORMAT JSON) " + sql, parameters).rows
        return rows.first?[0].flatMap(JSONValue.parse) ?? .array([])
    }

    /// The distinct values of `field` (a dotted path into an Object, or each element of an Array) among the objects
    /// `clause` selects, nulls left out.
    private func distinct(_ field: String, _ clause: [String: JSONValue], _ schema: ClassSchema, _ mapping: ClassFieldMapping,
                          _ explain: Bool) async throws -> JSONValue {
        let translator = WhereTranslator()
        let condition = try await translator.translate(clause, mapping, alias: "t0")
        let column = try translator.column(field, mapping, alias: "t0", sample: nil)
        guard column.exists, column.relationTable == nil else { return .array([]) }
        var type = column.type
        var expression = column.sql
        if type.kind == .array && !column.isNested {
            expression = "jsonb_array_elements(\(column.sql))"
            type = FieldType(.object)
        }
        let sql = "SELECT value FROM (SELECT DISTINCT \(expression) AS value FROM \(Names.table(schema.className)) AS t0 WHERE \(condition)) AS found WHERE value IS NOT NULL ORDER BY value"
        let rendered = "SELECT \(Self.render("value", type)) AS value FROM (\(sql)) AS ordered"
        if explain { return try await plan(rendered, translator.parameters.values) }
        let rows = try await connection.query(rendered, translator.parameters.values).rows
        let codec = context.codec
        return .array(rows.compactMap { $0["value"].flatMap { codec.decode($0, type) } })
    }
}
