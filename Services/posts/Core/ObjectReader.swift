import Contracts
import ParseWire
import Query
import Runtime
import Storage

/// Gets and finds: translates the options to one SQL statement (plus one per included class and level), keeps
/// unreadable rows out in SQL, and shapes the objects as clients read them.
struct ObjectReader {
    let context: RequestContext
    let connection: PostgresConnection
    /// False inside a batch transaction, where building an index would hold locks for the whole batch.
    var mayCreateIndexes = true

    struct FindResult: Sendable { var results: [JSONValue]; var count: Int? }

    /// Classes another service owns: `expand` leaves their pointers as they are (`_User` ones are resolved
    /// afterwards through the auth service, see `expandIncludes`).
    static let foreignClasses: Set<String> = ["_User", "_Role", "_Session", "_Installation"]

    /// A get outside a transaction, where `connections` lends one per step. With its class's schema cached and no
    /// include to expand, its statement goes with the gets that arrive with it (`GetBatcher`), holding no connection
    /// while it waits; anything else (a schema to read or found changed, a refusal, a batch that failed) goes the
    /// usual way, which answers it as if the batch had not been tried.
    static func get(_ className: String, objectId: String, options: QueryOptions, context: RequestContext,
                    connections: StatementConnections) async throws -> [String: JSONValue] {
        if case .pool = connections, let gets = context.gets, let schema = context.schemas.get(className),
           Self.includeList(options, schema).isEmpty,
           let statement = try? getStatement(className, objectId: objectId, options: options, schema: schema,
                                             context: context),
           let row = await gets.select(statement)?.rows.first, row["__fingerprint"] == schema.fingerprint {
            return options.project(try gotObject(row, schema: schema, context: context))
        }
        return try await connections.run {
            try await ObjectReader(context: context, connection: $0).get(className, objectId: objectId, options: options)
        }
    }

    func get(_ className: String, objectId: String, options: QueryOptions) async throws -> [String: JSONValue] {
        let found: (PostgresRow?, ClassSchema)? = try await withValidSchema(className) { schema in
            let statement = try Self.getStatement(className, objectId: objectId, options: options, schema: schema,
                                                  context: context)
            let rows = try await connection.query(statement.sql, statement.parameters).rows
            return (rows.first?["__fingerprint"], (rows.first, schema))
        }
        guard let (row, schema) = found else {
            try await context.mayUseMissingClass(className, on: connection)
            throw ParseError(.objectNotFound, "Object not found.")
        }
        var objects = [try Self.gotObject(row, schema: schema, context: context)]
        try await expandIncludes(&objects, schema, paths: Self.includePaths(options, schema))
        return options.project(objects[0])
    }

    /// A get's statement, once the caller may make it: the object's row if the caller may read it, with the schema's
    /// fingerprint (`SchemaStore.withFingerprint`).
    private static func getStatement(_ className: String, objectId: String, options: QueryOptions, schema: ClassSchema,
                                     context: RequestContext) throws -> PostgresStatement {
        try ClassPermissions.check("get", schema: schema, identity: context.identity)
        try context.configuration.requestComplexity.check(include: Self.includeList(options, schema), identity: context.identity)
        var parameters = SQLParameters()
        var sql = "SELECT \(ValueCodec.selectList(schema, table: "t0")) FROM \(Names.table(className)) AS t0 WHERE t0.\"objectId\" = \(parameters.bind(objectId))"
        if let filter = AccessControl.readFilter(context.identity, &parameters, table: "t0") { sql += " AND " + filter }
        if PlatformClasses.hidesAudiences("get", schema: schema, identity: context.identity) { sql += " AND FALSE" }
        if let filter = PointerPermissions.restriction("get", schema: schema, identity: context.identity, alias: "t0", &parameters) {
            sql += " AND " + filter
        }
        let classParameter = parameters.bind(className)
        return PostgresStatement(SchemaStore.withFingerprint(sql, classParameter: classParameter), parameters.values)
    }

    /// The object a get's row holds, as its caller may see it, before includes and `keys`.
    private static func gotObject(_ row: PostgresRow?, schema: ClassSchema,
                                  context: RequestContext) throws -> [String: JSONValue] {
        try context.requireCurrentTriggers(row)
        guard let row, row["objectId"] != nil else { throw ParseError(.objectNotFound, "Object not found.") }
        var object = context.codec.object(row, schema)
        ProtectedFields(schema: schema, identity: context.identity)?.strip(&object)
        return object
    }

    func find(_ className: String, options: QueryOptions) async throws -> FindResult {
        let limits = context.configuration.requestComplexity
        try limits.check(where: options.whereClause, subqueryDepth: context.foreignSubqueries?.depth ?? 0,
                         identity: context.identity)
        // Includes are expanded once the rows are final: `withValidSchema` may run its body twice.
        let found: (rows: [[String: JSONValue]], count: Int?, schema: ClassSchema)? = try await withValidSchema(className) { schema in
            try ClassPermissions.check("find", schema: schema, identity: context.identity)
            try limits.check(include: Self.includeList(options, schema), identity: context.identity)
            if let hint = options.hint {
                do {
                    try QueryHint.check(hint, schema: schema)
                } catch {
                    // The cached schema may predate the index the hint names.
                    try QueryHint.check(hint, schema: try await SchemaStore.load(className, on: connection, cache: context.schemas) ?? schema)
                }
            }
            if options.count { try ClassPermissions.check("count", schema: schema, identity: context.identity) }
            let protected = ProtectedFields(schema: schema, identity: context.identity)
            try protected?.checkQuery(options.whereClause, className: className)
            var options = options
            if PlatformClasses.hidesAudiences("find", schema: schema, identity: context.identity) {
                options.whereClause = ["objectId": .object(["$in": .array([])])]
            }
            let statement = try await prepareFind(schema, options: options)
            if mayCreateIndexes {
                try await IndexManager.ensureIndexes(for: statement.indexedFields, schema: schema, on: connection)
                try await IndexManager.ensureTextIndexes(for: statement.textSearches, schema: schema, on: connection)
            }
            var fingerprint: String?
            var count: Int?
            if options.count {
                let row = try await connection.query(statement.countSQL, statement.parameters).first
                try context.requireCurrentTriggers(row)
                fingerprint = row?["__fingerprint"]
                count = row?.int("count")
            }
            guard let rowsSQL = statement.rowsSQL else { return (fingerprint, ([], count, schema)) }
            let rows = try await connection.query(rowsSQL, statement.parameters).rows
            try context.requireCurrentTriggers(rows.first)
            fingerprint = rows.first?["__fingerprint"]
            let objects = rows.filter { $0["objectId"] != nil }.map { row in
                var object = context.codec.object(row, schema)
                if let score = row["__score"].flatMap(Double.init) { object["score"] = .number(score) }
                protected?.strip(&object)
                return object
            }
            return (fingerprint, (objects, count, schema))
        }
        guard let found else {
            try await context.mayUseMissingClass(className, on: connection)
            // parse-server refuses a bad query whether or not its class exists.
            _ = try await prepareFind(ClassSchema(className: className), options: options)
            return FindResult(results: [], count: options.count ? 0 : nil)
        }
        var objects = found.rows
        try await expandIncludes(&objects, found.schema, paths: Self.includePaths(options, found.schema))
        return FindResult(results: objects.map { .object(options.project($0)) }, count: found.count)
    }

    /// `explain`: the plan of the find as PostgreSQL's JSON (parse-server answers its database's plan), for the master
    /// key only, as parse-server 8 does by default.
    func explain(_ className: String, options: QueryOptions) async throws -> JSONValue {
        guard context.identity.isMaster || context.identity.isReadOnlyMaster else {
            throw ParseError(.invalidQuery, "Using the explain query parameter requires the master key")
        }
        guard let schema = try await SchemaStore.load(className, on: connection) else { return .array([]) }
        if let hint = options.hint { try QueryHint.check(hint, schema: schema) }
        let statement = try await prepareFind(schema, options: options)
        let sql = statement.rowsSQL ?? statement.countSQL
        let rows = try await connection.query("EXPLAIN (FORMAT JSON) " + sql, statement.parameters).rows
        return rows.first?[0].flatMap(JSONValue.parse) ?? .array([])
    }

    /// Runs `body` with the class's schema, cached when possible. `body` returns the fingerprint its statement
    /// read; when it is not the schema's (the class changed meanwhile, possibly through another replica), the
    /// schema is reloaded and `body` runs once more. A failure with a cached schema (a field it does not know yet,
    /// a permission it predates, SQL it made that cannot run) is final only once the database's schema says the
    /// same: a changed one is loaded and `body` runs again with it. Nil when the class does not exist.
    private func withValidSchema<T>(_ className: String,
                                    _ body: (ClassSchema) async throws -> (fingerprint: String?, value: T)) async throws -> T? {
        // Inside a batch transaction a failed statement would abort the transaction: read the schema fresh.
        let cached = mayCreateIndexes ? context.schemas.get(className) : nil
        var schema = cached
        if schema == nil { schema = try await SchemaStore.load(className, on: connection, cache: context.schemas) }
        for attempt in 0..<2 {
            guard let current = schema else { return nil }
            do {
                let (fingerprint, value) = try await body(current)
                if fingerprint == current.fingerprint || attempt == 1 { return value }
            } catch where attempt == 0 && cached != nil && Self.mayComeFromAStaleSchema(error) {
                let fresh = try await SchemaStore.load(className, on: connection, cache: context.schemas)
                guard fresh?.fingerprint != current.fingerprint else { throw error }
                schema = fresh
                continue
            }
            schema = try await SchemaStore.load(className, on: connection, cache: context.schemas)
        }
        return nil
    }

    /// Refusals and statement failures a schema read before the class changed can cause; not a deadline or an
    /// outage, which a fresh schema would not change.
    private static func mayComeFromAStaleSchema(_ error: any Error) -> Bool {
        if error is ParseError { return true }
        guard let error = error as? PostgresError else { return false }
        return FailureKind.of(error) == .deterministic
    }

    struct FindStatement: Sendable {
        /// Nil when `limit` is 0: no rows are read.
        var rowsSQL: String?
        var countSQL: String
        var parameters: [(any PostgresBindable)?]
        /// The fields it sorts and filters on, which `IndexManager` indexes.
        var indexedFields: [String]
        /// The fields `$text` searches, with their language.
        var textSearches: [TextSearch] = []
    }

    struct TextSearch: Sendable, Hashable { var field: String; var language: String }

    /// The SQL of a find, with unreadable rows filtered out and the class's fingerprint in every row; exposed
    /// so tests can EXPLAIN it.
    func prepareFind(_ schema: ClassSchema, options: QueryOptions) async throws -> FindStatement {
        var mapping = ClassFieldMapping(schema: schema, identity: context.identity) { [connection] name in
            try await SchemaStore.load(name, on: connection)
        }
        mapping.foreign = context.foreignSubqueries
        let translator = WhereTranslator()
        var condition = try await translator.translate(options.whereClause, mapping, alias: "t0")
        if let filter = mapping.readFilter(alias: "t0", translator: translator) { condition += " AND " + filter }
        var ordering = try orderBy(options.order, schema, textScore: translator.textScore)
        if ordering.sql.isEmpty && !translator.distanceOrder.isEmpty {
            ordering.sql = translator.distanceOrder.joined(separator: ", ")
        }
        let classParameter = translator.bind(schema.className)
        let from = "FROM \(Names.table(schema.className)) AS t0 WHERE \(condition)"
        var limit = options.limit ?? context.configuration.defaultLimit
        if let maxLimit = context.configuration.maxLimit, (context.foreignSubqueries?.depth ?? 0) == 0 {
            limit = min(limit, maxLimit)
        }
        var rowsSQL: String?
        if limit > 0 {
            var columns = ValueCodec.selectList(schema, table: "t0")
            if let score = translator.textScore, options.keys?.contains("$score") == true || options.order.contains(where: { $0.hasSuffix("$score") }) {
                columns += ", \(score) AS \"__score\""
            }
            var sql = "SELECT \(columns) \(from)"
            if !ordering.sql.isEmpty { sql += " ORDER BY " + ordering.sql }
            sql += " LIMIT \(limit)"
            if options.skip > 0 { sql += " OFFSET \(options.skip)" }
            rowsSQL = SchemaStore.withFingerprint(sql, classParameter: classParameter)
        }
        let countSQL = SchemaStore.withFingerprint("SELECT count(*) AS count \(from)", classParameter: classParameter)
        return FindStatement(rowsSQL: rowsSQL, countSQL: countSQL, parameters: translator.parameters.values,
                             indexedFields: ordering.fields + translator.filteredFields,
                             textSearches: translator.textSearches.map { TextSearch(field: $0.field, language: $0.language) })
    }

    /// `ORDER BY` for `order`: unknown fields are dropped, as in parse-server; invalid names are a 105.
    /// `$score` (either way) ranks the best `$text` match first, as MongoDB's text score does.
    func orderBy(_ order: [String], _ schema: ClassSchema, textScore: String? = nil) throws(ParseError) -> (sql: String, fields: [String]) {
        var terms: [String] = [], fields: [String] = []
        for key in order {
            let descending = key.hasPrefix("-")
            let name = descending ? String(key.dropFirst()) : key
            if name == "$score" {
                if let textScore { terms.append("\(textScore) DESC") }
                continue
            }
            guard Names.isValidFieldName(name) else { throw ParseError(.invalidKeyName, "Invalid field name: \(name).") }
            guard let type = schema.type(of: name), type.columnType != nil else { continue }
            terms.append("t0.\(Names.quoted(name))" + (descending ? " DESC" : ""))
            fields.append(name)
        }
        return (terms.joined(separator: ", "), fields)
    }

    // MARK: include

    final class PathTree {
        var children: [String: PathTree] = [:]

        init() {}

        /// The tree of dotted include paths (`post.author`, `user`).
        convenience init(paths: [String]) {
            self.init()
            for path in paths {
                var node = self
                for part in path.split(separator: ".").map(String.init) {
                    let next = node.children[part] ?? PathTree()
                    node.children[part] = next
                    node = next
                }
            }
        }
    }

    /// `include` with `*` replaced by the class's pointer and array fields.
    private static func includeList(_ options: QueryOptions, _ schema: ClassSchema) -> [String] {
        var paths = options.include
        if paths.contains("*") {
            paths.removeAll { $0 == "*" }
            paths += schema.fields.filter { $0.value.kind == .pointer || $0.value.kind == .array }.map(\.key)
        }
        return paths
    }

    private static func includePaths(_ options: QueryOptions, _ schema: ClassSchema) -> PathTree {
        PathTree(paths: includeList(options, schema))
    }

    /// Expands the classes posts owns, then the `_User` pointers through the auth service in one lookup for
    /// the whole answer (every row, every path, every depth). Without a user directory (tests of the SQL alone)
    /// `_User` pointers stay pointers.
    private func expandIncludes(_ objects: inout [[String: JSONValue]], _ schema: ClassSchema, paths: PathTree) async throws {
        guard !paths.children.isEmpty else { return }
        try await expand(&objects, schema, paths: paths)
        guard let directory = context.users else { return }
        let ids = UserIncludes.userIds(in: objects, paths: paths)
        guard !ids.isEmpty else { return }
        let users = try await directory.lookup(ids.sorted(), context.identity, context.requestId)
        UserIncludes.replace(in: &objects, paths: paths, users: users)
    }

    /// Replaces pointers along the include paths by the objects they point to, one query per class and level;
    /// pointers the caller may not read disappear, as in parse-server.
    private func expand(_ objects: inout [[String: JSONValue]], _ schema: ClassSchema, paths: PathTree) async throws {
        for (key, subtree) in paths.children.sorted(by: { $0.key < $1.key }) {
            var wanted: [String: Set<String>] = [:]
            for object in objects {
                for pointer in Self.pointers(in: object[key]) { wanted[pointer.className, default: []].insert(pointer.objectId) }
            }
            var loaded: [String: [String: [String: JSONValue]]] = [:]
            for (className, ids) in wanted.sorted(by: { $0.key < $1.key }) where !Self.foreignClasses.contains(className) {
                guard Names.isValidClassName(className), let target = try await SchemaStore.load(className, on: connection),
                      (try? ClassPermissions.check("get", schema: target, identity: context.identity)) != nil else {
                    loaded[className] = [:]
                    continue
                }
                var found = try await load(target, ids: ids.sorted())
                try await expand(&found, target, paths: subtree)
                loaded[className] = Dictionary(found.compactMap { object in object["objectId"]?.stringValue.map { ($0, object) } },
                                               uniquingKeysWith: { first, _ in first })
            }
            for index in objects.indices {
                guard let value = objects[index][key] else { continue }
                objects[index][key] = Self.replace(value, loaded)
            }
        }
    }

    private func load(_ schema: ClassSchema, ids: [String]) async throws -> [[String: JSONValue]] {
        var parameters = SQLParameters()
        var sql = "SELECT \(ValueCodec.selectList(schema, table: "t0")) FROM \(Names.table(schema.className)) AS t0 WHERE t0.\"objectId\" = ANY(\(parameters.bindTextArray(ids)))"
        if let filter = AccessControl.readFilter(context.identity, &parameters, table: "t0") { sql += " AND " + filter }
        if let filter = PointerPermissions.restriction("get", schema: schema, identity: context.identity, alias: "t0", &parameters) {
            sql += " AND " + filter
        }
        let protected = ProtectedFields(schema: schema, identity: context.identity)
        return try await connection.query(sql, parameters.values).rows.map { row in
            var object = context.codec.object(row, schema)
            protected?.strip(&object)
            return object
        }
    }

    private static func pointers(in value: JSONValue?) -> [(className: String, objectId: String)] {
        switch value {
        case .object(let fields)?:
            guard fields["__type"]?.stringValue == "Pointer", let className = fields["className"]?.stringValue,
                  let id = fields["objectId"]?.stringValue else { return [] }
            return [(className, id)]
        case .array(let items)?:
            return items.flatMap { pointers(in: $0) }
        default:
            return []
        }
    }

    /// Nil when the pointer must disappear (its target is missing or unreadable).
    private static func replace(_ value: JSONValue, _ loaded: [String: [String: [String: JSONValue]]]) -> JSONValue? {
        switch value {
        case .object(let fields):
            guard fields["__type"]?.stringValue == "Pointer", let className = fields["className"]?.stringValue,
                  let id = fields["objectId"]?.stringValue, let byId = loaded[className] else { return value }
            guard var object = byId[id] else { return nil }
            object["__type"] = .string("Object")
            object["className"] = .string(className)
            return .object(object)
        case .array(let items):
            return .array(items.compactMap { replace($0, loaded) })
        default:
            return value
        }
    }
}
