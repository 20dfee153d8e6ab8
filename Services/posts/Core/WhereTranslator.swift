import Contracts
import ParseWire
import Storage

/// Turns a Parse `where` into a parameterised SQL condition. Names are validated before they are quoted into
/// the text; every value is a bound parameter. An operator it cannot serve faithfully is a 102, never a guess.
final class WhereTranslator {
    private(set) var parameters = SQLParameters()
    private let identity: Identity
    private let loadSchema: (String) async throws -> ClassSchema?
    private var aliasCount = 0
    /// Fields the query filters on, per class, so they can be indexed.
    private(set) var filteredFields: [String] = []

    init(identity: Identity, loadSchema: @escaping (String) async throws -> ClassSchema?) {
        self.identity = identity
        self.loadSchema = loadSchema
    }

    func newAlias() -> String {
        aliasCount += 1
        return "t\(aliasCount)"
    }

    func bind(_ value: (any PostgresBindable)?) -> String { parameters.bind(value) }

    func readFilter(alias: String) -> String? { AccessControl.readFilter(identity, &parameters, table: alias) }

    /// The condition for `clause` on rows of `schema` named `alias`; "TRUE" when empty.
    func translate(_ clause: [String: JSONValue], _ schema: ClassSchema, alias: String, topLevel: Bool = true) async throws -> String {
        var parts: [String] = []
        for (key, value) in clause.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "$or", "$and", "$nor":
                parts.append(try await logical(key, value, schema, alias))
            case "$relatedTo":
                parts.append(try await relatedTo(value, alias))
            case "ACL":
                throw ParseError(.invalidQuery, "Cannot query on ACL.")
            default:
                if key.hasPrefix("$") { throw ParseError(.invalidQuery, "Unsupported query operator: \(key)") }
                let column = try column(key, schema, alias: alias, sample: value)
                if topLevel && !key.contains(".") { filteredFields.append(key) }
                parts.append(try await constraint(value, column))
            }
        }
        return parts.isEmpty ? "TRUE" : parts.joined(separator: " AND ")
    }

    private func logical(_ key: String, _ value: JSONValue, _ schema: ClassSchema, _ alias: String) async throws -> String {
        guard let items = value.arrayValue, key != "$nor" || !items.isEmpty else {
            if key == "$nor" { throw ParseError(.invalidQuery, "Bad $nor format - use an array of at least 1 value.") }
            throw ParseError(.invalidQuery, "Bad \(key) format - use an array value.")
        }
        var parts: [String] = []
        for item in items {
            guard let sub = item.objectValue else { throw ParseError(.invalidQuery, "Bad \(key) format - use an array value.") }
            parts.append("(" + (try await translate(sub, schema, alias: alias, topLevel: false)) + ")")
        }
        if parts.isEmpty { return key == "$and" ? "TRUE" : "FALSE" }
        switch key {
        case "$or": return "(" + parts.joined(separator: " OR ") + ")"
        case "$and": return "(" + parts.joined(separator: " AND ") + ")"
        default: return "NOT (" + parts.joined(separator: " OR ") + ")"
        }
    }

    private func relatedTo(_ value: JSONValue, _ alias: String) async throws -> String {
        guard let object = value["object"], object["__type"]?.stringValue == "Pointer",
              let owner = object["className"]?.stringValue, let ownerId = object["objectId"]?.stringValue,
              let key = value["key"]?.stringValue else {
            throw ParseError(.invalidQuery, "improper usage of $relatedTo")
        }
        guard Names.isValidClassName(owner), Names.isValidFieldName(key) else {
            throw ParseError(.invalidKeyName, "Invalid key name: \(key)")
        }
        guard let ownerSchema = try await loadSchema(owner), ownerSchema.fields[key]?.kind == .relation else { return "FALSE" }
        return "\(alias).\"objectId\" IN (SELECT \"relatedId\" FROM \(Names.joinTable(field: key, className: owner)) WHERE \"owningId\" = \(bind(ownerId)))"
    }

    // MARK: columns

    struct Column {
        var sql: String
        /// The stored type; a field inside an Object is `jsonb`, typed `Object` here.
        var type: FieldType
        var isNested: Bool
        /// False for a field the class does not have: it is null on every row.
        var exists: Bool
    }

    func column(_ key: String, _ schema: ClassSchema, alias: String, sample: JSONValue?) throws(ParseError) -> Column {
        let path = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard path.allSatisfy({ Names.isValidFieldName($0) || $0.allSatisfy(\.isNumber) && !$0.isEmpty }),
              Names.isValidFieldName(path[0]) else {
            throw ParseError(.invalidKeyName, "Invalid key name: \(key)")
        }
        let name = path[0]
        if path.count > 1 {
            guard let type = schema.type(of: name) else {
                return Column(sql: "NULL::jsonb", type: FieldType(.object), isNested: true, exists: false)
            }
            guard type.kind == .object else {
                throw ParseError(.invalidQuery, "Cannot query on a sub-key of \(name): it is not an Object field.")
            }
            let pathParameter = parameters.bindTextArray(Array(path.dropFirst()))
            return Column(sql: "(\(alias).\(Names.quoted(name)) #> \(pathParameter))", type: FieldType(.object), isNested: true, exists: true)
        }
        if let type = schema.type(of: name) {
            guard type.kind != .acl else { throw ParseError(.invalidQuery, "Cannot query on ACL.") }
            if type.kind == .relation {
                throw ParseError(.invalidQuery, "Query a Relation field with $relatedTo.")
            }
            return Column(sql: "\(alias).\(Names.quoted(name))", type: type, isNested: false, exists: true)
        }
        let guessed = Self.guessType(sample) ?? FieldType(.string)
        return Column(sql: "NULL::\(guessed.columnType ?? "text")", type: guessed, isNested: false, exists: false)
    }

    /// The type of a missing field, read from the value it is compared with, so the SQL still types.
    private static func guessType(_ value: JSONValue?) -> FieldType? {
        guard let value else { return nil }
        if let fields = value.objectValue, fields.keys.contains(where: { $0.hasPrefix("$") }) {
            for operand in fields.values {
                if let items = operand.arrayValue, let first = items.first { return guessType(first) }
                if let type = guessType(operand), operand.objectValue == nil || operand["__type"] != nil { return type }
            }
            return nil
        }
        guard let type = try? FieldType.of(value) else { return nil }
        return type.kind == .relation ? nil : type
    }

    // MARK: constraints

    private func constraint(_ value: JSONValue, _ column: Column) async throws -> String {
        guard let fields = value.objectValue, fields.keys.contains(where: { $0.hasPrefix("$") }) else {
            return try equality(value, column)
        }
        var parts: [String] = []
        for (op, operand) in fields.sorted(by: { $0.key < $1.key }) {
            switch op {
            case "$eq": parts.append(try equality(operand, column))
            case "$ne": parts.append("NOT COALESCE(" + (try equality(operand, column)) + ", FALSE)")
            case "$lt", "$lte", "$gt", "$gte": parts.append(try comparison(op, operand, column))
            case "$in": parts.append(try membership(operand, column, name: "$in"))
            case "$nin": parts.append("NOT COALESCE(" + (try membership(operand, column, name: "$nin")) + ", FALSE)")
            case "$exists":
                guard let flag = operand.boolValue else { throw ParseError(.invalidQuery, "bad $exists value") }
                parts.append("\(column.sql) IS \(flag ? "NOT " : "")NULL")
            case "$all": parts.append(try all(operand, column))
            case "$containedBy":
                guard let items = operand.arrayValue else { throw ParseError(.invalidJSON, "bad $containedBy: should be an array") }
                try requireArray(column, op)
                parts.append("\(column.sql) <@ \(bind(JSONValue.array(items).compactText))::jsonb")
            case "$regex": parts.append(try regex(operand, options: fields["$options"], column))
            case "$options":
                guard fields["$regex"] != nil else { throw ParseError(.invalidQuery, "$options needs $regex.") }
            case "$select", "$dontSelect":
                let condition = try await select(operand, column, name: op)
                parts.append(op == "$select" ? condition : "NOT COALESCE(\(condition), FALSE)")
            case "$inQuery", "$notInQuery":
                let condition = try await inQuery(operand, column, name: op)
                parts.append(op == "$inQuery" ? condition : "NOT COALESCE(\(condition), FALSE)")
            case "$nearSphere", "$within", "$geoWithin", "$geoIntersects", "$text", "$maxDistance",
                 "$maxDistanceInRadians", "$maxDistanceInMiles", "$maxDistanceInKilometers", "$relativeTime":
                throw ParseError(.invalidQuery, "The query operator \(op) is not supported by this server.")
            default:
                throw ParseError(.invalidQuery, "Unsupported query operator: \(op)")
            }
        }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " AND ") + ")"
    }

    /// The SQL value to compare a column with.
    private func operand(_ value: JSONValue, _ column: Column) throws(ParseError) -> String {
        if column.type.kind == .geoPoint {
            throw ParseError(.invalidQuery, "GeoPoint fields can only be queried with $exists on this server.")
        }
        if column.isNested || [.object, .array, .bytes].contains(column.type.kind) {
            return bind(value.compactText) + "::jsonb"
        }
        if column.type.kind == .date, let text = value.stringValue, let date = ParseDate.date(from: text) {
            return bind(date) + "::timestamptz"
        }
        if column.type.kind == .pointer || column.type.kind == .file, let text = value.stringValue {
            return bind(text)
        }
        return try ValueCodec.storage(value, column.type, &parameters)
    }

    private func equality(_ value: JSONValue, _ column: Column) throws(ParseError) -> String {
        if value.isNull { return "\(column.sql) IS NULL" }
        if column.type.kind == .array && !column.isNested && value.arrayValue == nil {
            // Array fields: equality with one value means "contains it", as in parse-server.
            return "\(column.sql) @> \(bind(JSONValue.array([value]).compactText))::jsonb"
        }
        return "\(column.sql) = \(try operand(value, column))"
    }

    private func comparison(_ op: String, _ value: JSONValue, _ column: Column) throws(ParseError) -> String {
        if value.objectValue?["$relativeTime"] != nil {
            throw ParseError(.invalidQuery, "The query operator $relativeTime is not supported by this server.")
        }
        guard !value.isNull else { throw ParseError(.invalidQuery, "\(op) needs a value.") }
        let sqlOp = ["$lt": "<", "$lte": "<=", "$gt": ">", "$gte": ">="][op]!
        return "\(column.sql) \(sqlOp) \(try operand(value, column))"
    }

    private func membership(_ value: JSONValue, _ column: Column, name: String) throws(ParseError) -> String {
        guard let items = value.arrayValue else { throw ParseError(.invalidJSON, "bad \(name) value") }
        if items.isEmpty { return "FALSE" }
        if column.type.kind == .array && !column.isNested {
            let list = bind(JSONValue.array(items).compactText)
            return "EXISTS (SELECT 1 FROM jsonb_array_elements(\(list)::jsonb) AS wanted(value) WHERE \(column.sql) @> jsonb_build_array(wanted.value))"
        }
        var values: [String] = []
        var allowsNull = false
        for item in items {
            if item.isNull { allowsNull = true } else { values.append(try operand(item, column)) }
        }
        var parts: [String] = []
        if !values.isEmpty { parts.append("\(column.sql) IN (\(values.joined(separator: ", ")))") }
        if allowsNull { parts.append("\(column.sql) IS NULL") }
        return "(" + parts.joined(separator: " OR ") + ")"
    }

    private func all(_ value: JSONValue, _ column: Column) throws(ParseError) -> String {
        guard let items = value.arrayValue else { throw ParseError(.invalidJSON, "bad $all value") }
        if items.contains(where: { $0["$regex"] != nil }) {
            throw ParseError(.invalidQuery, "$all with $regex values is not supported by this server.")
        }
        try requireArray(column, "$all")
        return "\(column.sql) @> \(bind(JSONValue.array(items).compactText))::jsonb"
    }

    private func requireArray(_ column: Column, _ op: String) throws(ParseError) {
        guard column.type.kind == .array || column.isNested || !column.exists else {
            throw ParseError(.invalidQuery, "\(op) applies to Array fields only.")
        }
    }

    private func regex(_ value: JSONValue, options: JSONValue?, _ column: Column) throws(ParseError) -> String {
        guard let pattern = value.stringValue else { throw ParseError(.invalidQuery, "bad $regex value") }
        let flags = options?.stringValue ?? ""
        guard options == nil || options?.stringValue != nil, flags.allSatisfy({ "imxs".contains($0) }) else {
            throw ParseError(.invalidQuery, "Bad $options value for query: \(options?.stringValue ?? options?.compactText ?? "")")
        }
        guard column.type.kind == .string || !column.exists else {
            throw ParseError(.invalidQuery, "$regex applies to String fields only.")
        }
        // PostgreSQL's embedded options: `w` makes ^ and $ match at line breaks (Mongo's `m`), `x` is the same.
        var embedded = ""
        if flags.contains("m") { embedded += "w" }
        if flags.contains("x") { embedded += "x" }
        let full = embedded.isEmpty ? pattern : "(?\(embedded))" + pattern
        return "\(column.sql) \(flags.contains("i") ? "~*" : "~") \(bind(full))"
    }

    private func subquery(_ query: JSONValue?, name: String) async throws -> (ClassSchema?, String, String) {
        guard let query, let className = query["className"]?.stringValue else {
            throw ParseError(.invalidQuery, "improper usage of \(name)")
        }
        try Names.requireClassName(className)
        let clause: [String: JSONValue]
        switch query["where"] {
        case nil, .null?: clause = [:]
        case .object(let value)?: clause = value
        default: throw ParseError(.invalidQuery, "improper usage of \(name)")
        }
        guard let schema = try await loadSchema(className) else { return (nil, "", "") }
        // A subquery reads the other class: its `find` permission applies as to a query of its own.
        try ClassPermissions.check("find", schema: schema, identity: identity)
        let alias = newAlias()
        var condition = try await translate(clause, schema, alias: alias, topLevel: false)
        if let filter = readFilter(alias: alias) { condition += " AND " + filter }
        return (schema, alias, "FROM \(Names.table(className)) AS \(alias) WHERE \(condition)")
    }

    private func select(_ value: JSONValue, _ column: Column, name: String) async throws -> String {
        guard let fields = value.objectValue, fields.count == 2, let key = fields["key"]?.stringValue, fields["query"] != nil else {
            throw ParseError(.invalidQuery, "improper usage of \(name)")
        }
        let (schema, alias, from) = try await subquery(fields["query"], name: name)
        guard let schema else { return "FALSE" }
        let keyColumn = try self.column(key, schema, alias: alias, sample: nil)
        guard keyColumn.exists else { return "FALSE" }
        return "\(column.sql)::text IN (SELECT \(keyColumn.sql)::text \(from))"
    }

    private func inQuery(_ value: JSONValue, _ column: Column, name: String) async throws -> String {
        guard value.objectValue != nil else { throw ParseError(.invalidQuery, "improper usage of \(name)") }
        let (schema, alias, from) = try await subquery(value, name: name)
        guard schema != nil else { return "FALSE" }
        switch column.type.kind {
        case .pointer:
            return "\(column.sql) IN (SELECT \(alias).\"objectId\" \(from))"
        case .array:
            return "EXISTS (SELECT 1 \(from) AND \(column.sql) @> jsonb_build_array(jsonb_build_object('objectId', \(alias).\"objectId\")))"
        default:
            guard column.exists else { return "FALSE" }
            throw ParseError(.invalidQuery, "\(name) applies to Pointer fields only.")
        }
    }
}
