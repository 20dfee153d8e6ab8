import Contracts
import ParseWire
import Query
import Storage

/// `GET /aggregate/_User` (master key only, as in parse-server): a `pipeline` of stages, or `distinct=<field>` with an
/// optional `where`, each answered by one SQL statement over `users`. The fixed columns keep their types; each custom
/// field of the `fields` document is typed from the JSON values stored under it. Secrets are no field of the pipeline.
struct UserAggregateHandler {
    let pool: PostgresPool

    /// Parameters that are options of the call rather than stages.
    static let optionKeys: Set<String> = ["distinct", "where", "hint", "explain", "comment", "readPreference", "pipeline"]
    /// Names a custom field cannot take over: the fixed columns and what is never readable.
    static let reservedNames: Set<String> = ["objectId", "username", "email", "emailVerified", "createdAt", "updatedAt",
                                             "password", "sessionToken", "authData", "ACL"]

    func handle(_ request: AuthRequest) async throws -> RESTResponse {
        guard request.method == "GET" || request.method == "POST" else {
            throw ParseError.noSuchRoute(request.method, "/\(request.segments.joined(separator: "/"))")
        }
        guard request.identity.isMaster || request.identity.isReadOnlyMaster else {
            return RESTResponse(status: 403, body: #"{"error":"unauthorized: master key is required"}"#)
        }
        let options = try QueryOptions.merge(query: request.query, body: request.bodyText)
        var clause: [String: JSONValue] = [:]
        switch options["where"] {
        case nil, .null?: break
        case .object(let value)?: clause = value
        default: throw ParseError(.invalidQuery, "Improper encode of parameter where: it must be a JSON object.")
        }
        let explain = try options["explain"].map(QueryOptions.flag) ?? false
        let mapping = UserFieldMapping(isMaster: true)
        do {
            let columns = try await self.columns()
            if let distinct = options["distinct"] {
                let field = distinct.stringValue ?? distinct.compactText
                let values = try await self.distinct(field, clause, columns, mapping, explain)
                return AuthResponses.ok(["results": values])
            }
            let stages = try AggregatePipeline.stages(options["pipeline"] ?? .object(options.filter { !Self.optionKeys.contains($0.key) }))
            var pipeline = AggregatePipeline(table: "users", columns: columns)
            if !clause.isEmpty { try await pipeline.apply("$match", .object(clause), mapping: mapping) }
            for (name, body) in stages { try await pipeline.apply(name, body, mapping: mapping) }
            let rendered = pipeline.columns.map { "\(Self.render("out.\(Names.quoted($0.name))", $0.type)) AS \(Names.quoted($0.name))" }
            let sql = "SELECT \(rendered.joined(separator: ", ")) FROM (\(pipeline.current.sql)) AS out"
            let parameters = pipeline.translator.parameters.values
            if explain { return AuthResponses.ok(["results": try await plan(sql, parameters)]) }
            let rows = try await pool.query(sql, parameters).rows
            let results: [JSONValue] = rows.map { row in
                var object: [String: JSONValue] = ["objectId": .null]
                for column in pipeline.columns {
                    guard let text = row[column.name] else { continue }
                    object[column.name] = Self.decode(text, column)
                }
                return .object(object)
            }
            return AuthResponses.ok(["results": .array(results)])
        } catch let error as PostgresError {
            throw error.queryError ?? error
        }
    }

    /// The fields of `_User` as pipeline columns over `t0`: the fixed ones, then each custom field, typed when every
    /// value stored under it has one JSON type (a value of another type reads as null, so a write racing this
    /// cannot make a cast fail), an Object otherwise.
    private func columns() async throws -> [(sql: String, column: AggregatePipeline.Column)] {
        var columns: [(sql: String, column: AggregatePipeline.Column)] = [
            ("t0.id", .init(name: "objectId", type: FieldType(.string))),
            ("t0.created_at", .init(name: "createdAt", type: FieldType(.date))),
            ("t0.updated_at", .init(name: "updatedAt", type: FieldType(.date))),
            ("t0.username", .init(name: "username", type: FieldType(.string))),
            ("t0.email", .init(name: "email", type: FieldType(.string))),
            ("t0.email_verified", .init(name: "emailVerified", type: FieldType(.boolean))),
        ]
        let kinds = """
            SELECT key, string_agg(DISTINCT CASE WHEN jsonb_typeof(value) = 'object' AND value->>'__type' = 'Date' THEN 'date'
                                                 ELSE jsonb_typeof(value) END, ',') AS kinds
            FROM users, jsonb_each(fields) WHERE jsonb_typeof(value) <> 'null' GROUP BY key ORDER BY key
            """
        for row in try await pool.query(kinds).rows {
            guard let name = row["key"], Names.isValidFieldName(name), !Self.reservedNames.contains(name) else { continue }
            // A valid field name is a plain identifier, so it is safe as a literal.
            let value = "t0.fields->'\(name)'"
            let typed: (String, FieldType) = switch row["kinds"] ?? "" {
            case "number": ("CASE WHEN jsonb_typeof(\(value)) = 'number' THEN (\(value))::double precision END", FieldType(.number))
            case "string": ("CASE WHEN jsonb_typeof(\(value)) = 'string' THEN \(value)->>0 END", FieldType(.string))
            case "boolean": ("CASE WHEN jsonb_typeof(\(value)) = 'boolean' THEN (\(value))::boolean END", FieldType(.boolean))
            case "date": ("CASE WHEN \(value)->>'__type' = 'Date' THEN (\(value)->>'iso')::timestamptz END", FieldType(.date))
            case "array": (value, FieldType(.array))
            default: (value, FieldType(.object))
            }
            columns.append((typed.0, .init(name: name, type: typed.1)))
        }
        return columns
    }

    /// A column as JSON text, dates as their ISO text.
    static func render(_ sql: String, _ type: FieldType) -> String {
        type.kind == .date ? AggregatePipeline.dateText(sql) : "to_jsonb(\(sql))::text"
    }

    static func decode(_ text: String, _ column: AggregatePipeline.Column) -> JSONValue? {
        guard column.type.kind == .date else { return JSONValue.parse(text) }
        if column.name == "createdAt" || column.name == "updatedAt" { return .string(text) }
        return .object(["__type": .string("Date"), "iso": .string(text)])
    }

    /// parse-server's `EXPLAIN` answer on PostgreSQL: the plan as JSON.
    private func plan(_ sql: String, _ parameters: [(any PostgresBindable)?]) async throws -> JSONValue {
        let rows = try await pool.query("EXPLAIN (FORMAT JSON) " + sql, parameters).rows
        return rows.first?[0].flatMap(JSONValue.parse) ?? .array([])
    }

    /// The distinct values of `field` (a dotted path into a custom Object, or each element of a custom Array) among
    /// the users `clause` selects, nulls left out.
    private func distinct(_ field: String, _ clause: [String: JSONValue], _ columns: [(sql: String, column: AggregatePipeline.Column)],
                          _ mapping: UserFieldMapping, _ explain: Bool) async throws -> JSONValue {
        let translator = WhereTranslator()
        let condition = try await translator.translate(clause, mapping, alias: "t0")
        let path = field.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for part in path where !Names.isValidFieldName(part) {
            throw ParseError(.invalidKeyName, "Invalid key name: \(field)")
        }
        // Refuses the secrets as a query on them would (with a translator of its own: a custom field binds its key).
        _ = try mapping.column(path[0], alias: "t0", translator: WhereTranslator())
        var expression: String
        var type: FieldType
        if path.count == 1 {
            guard let found = columns.first(where: { $0.column.name == field }) else { return .array([]) }
            (expression, type) = (found.sql, found.column.type)
            if type.kind == .array {
                expression = "jsonb_array_elements(CASE WHEN jsonb_typeof(\(expression)) = 'array' THEN \(expression) ELSE '[]'::jsonb END)"
                type = FieldType(.object)
            }
        } else {
            guard !Self.reservedNames.contains(path[0]) else { return .array([]) }
            expression = "t0.fields #> '{\(path.joined(separator: ","))}'"
            type = FieldType(.object)
        }
        let sql = "SELECT value FROM (SELECT DISTINCT \(expression) AS value FROM users AS t0 WHERE \(condition)) AS found WHERE value IS NOT NULL AND to_jsonb(value) <> 'null'::jsonb ORDER BY value"
        let rendered = "SELECT \(Self.render("value", type)) AS value FROM (\(sql)) AS ordered"
        if explain { return try await plan(rendered, translator.parameters.values) }
        let rows = try await pool.query(rendered, translator.parameters.values).rows
        let column = AggregatePipeline.Column(name: "value", type: type)
        return .array(rows.compactMap { $0["value"].flatMap { Self.decode($0, column) } })
    }
}
