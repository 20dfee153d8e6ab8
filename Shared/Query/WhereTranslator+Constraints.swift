import ParseWire
import Storage

/// The operators of one field's constraint (`{"$gt":1,"$lt":5}`) and the SQL of each.
extension WhereTranslator {
    /// A constraint on a path into the objects of an Array field, with MongoDB's meaning (the PHP SDK's suite
    /// expects it): each operator holds if some element satisfies it, and a negative one (`$ne`, `$nin`,
    /// `$exists: false`) if no element satisfies its positive form. The elements are read as schemaless values.
    func arrayElementConstraint(_ value: JSONValue, _ column: QueryColumn, _ mapping: any FieldMapping,
                                field: String) async throws -> String {
        guard let (array, alias) = column.arrayElements else { return try await constraint(value, column, mapping, field: field) }
        let elements = "jsonb_array_elements(CASE WHEN jsonb_typeof(\(array)) = 'array' THEN \(array) ELSE '[]'::jsonb END) AS \(alias)(value)"
        func some(_ condition: String) -> String { "EXISTS (SELECT 1 FROM \(elements) WHERE \(condition))" }
        guard let fields = value.objectValue, fields.keys.contains(where: { $0.hasPrefix("$") }) else {
            return some(try await constraint(value, column, mapping, field: field))
        }
        var parts: [String] = []
        for (op, operand) in fields.sorted(by: { $0.key < $1.key }) where op != "$options" {
            switch op {
            case "$ne": parts.append("NOT " + some(try await constraint(.object(["$eq": operand]), column, mapping, field: field)))
            case "$nin": parts.append("NOT " + some(try await constraint(.object(["$in": operand]), column, mapping, field: field)))
            case "$exists" where operand.boolValue == false:
                parts.append("NOT " + some(try await constraint(.object(["$exists": .bool(true)]), column, mapping, field: field)))
            case "$regex":
                var regex: [String: JSONValue] = ["$regex": operand]
                regex["$options"] = fields["$options"]
                parts.append(some(try await constraint(.object(regex), column, mapping, field: field)))
            default: parts.append(some(try await constraint(.object([op: operand]), column, mapping, field: field)))
            }
        }
        if parts.isEmpty { throw ParseError(.invalidQuery, "$options needs $regex.") }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " AND ") + ")"
    }

    func constraint(_ value: JSONValue, _ column: QueryColumn, _ mapping: any FieldMapping, field: String) async throws -> String {
        if let table = column.relationTable { return try relation(value, column, table: table) }
        guard let fields = value.objectValue, fields.keys.contains(where: { $0.hasPrefix("$") }) else {
            return try equality(value, column)
        }
        var parts: [String] = []
        for (op, operand) in fields.sorted(by: { $0.key < $1.key }) {
            if op == "$relativeTime" { throw ParseError(.invalidJSON, "bad constraint: $relativeTime") }
            if operand["$relativeTime"] != nil && !["$lt", "$lte", "$gt", "$gte"].contains(op) {
                throw ParseError(.invalidJSON, "$relativeTime can only be used with the $lt, $lte, $gt, and $gte operators")
            }
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
            case "$select", "$dontSelect", "$inQuery", "$notInQuery":
                let condition = try await mapping.subquery(op, operand, column, translator: self)
                parts.append(op == "$select" || op == "$inQuery" ? condition : "NOT COALESCE(\(condition), FALSE)")
            case _ where Self.geoOperators.contains(op):
                parts.append(try geo(op, operand, fields, column))
            case _ where Self.distanceLimits[op] != nil:
                guard fields["$nearSphere"] != nil else { throw ParseError(.invalidQuery, "\(op) needs $nearSphere.") }
            case "$text": parts.append(try text(operand, column, field: field))
            default:
                throw ParseError(.invalidQuery, "Unsupported query operator: \(op)")
            }
        }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " AND ") + ")"
    }

    /// The SQL value to compare a column with.
    private func operand(_ value: JSONValue, _ column: QueryColumn) throws(ParseError) -> String {
        if column.type.kind == .geoPoint || column.type.kind == .polygon {
            throw ParseError(.invalidQuery, "\(column.type.kind.rawValue) fields can only be queried with equality, $exists and the geo operators.")
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
        return try ValueStorage.sql(value, column.type, &parameters)
    }

    private func equality(_ value: JSONValue, _ column: QueryColumn) throws(ParseError) -> String {
        if value.isNull { return "\(column.sql) IS NULL" }
        if !column.isNested && [.geoPoint, .polygon].contains(column.type.kind) {
            // PostgreSQL's "same as" (`~=`): geometric types have no `=`.
            return "\(column.sql) ~= \(try ValueStorage.sql(value, column.type, &parameters))"
        }
        if column.isSchemaless && value.arrayValue == nil {
            // An array holding the value matches too, as with typed Array columns.
            let wanted = try operand(value, column)
            return "(\(column.sql) = \(wanted) OR (jsonb_typeof(\(column.sql)) = 'array' AND \(column.sql) @> jsonb_build_array(\(wanted))))"
        }
        if column.type.kind == .array && !column.isNested && value.arrayValue == nil {
            // Array fields: equality with one value means "contains it", as in parse-server.
            return "\(column.sql) @> \(bind(JSONValue.array([value]).compactText))::jsonb"
        }
        return "\(column.sql) = \(try operand(value, column))"
    }

    private func comparison(_ op: String, _ value: JSONValue, _ column: QueryColumn) throws(ParseError) -> String {
        let sqlOp = ["$lt": "<", "$lte": "<=", "$gt": ">", "$gte": ">="][op]!
        if let relative = value.objectValue?["$relativeTime"] {
            guard column.type.kind == .date && !column.isNested || !column.exists else {
                throw ParseError(.invalidJSON, "$relativeTime can only be used with Date field")
            }
            let date = try RelativeTime.date(operand: relative, op: op)
            guard column.exists else { return "FALSE" }
            return "\(column.sql) \(sqlOp) \(bind(date))::timestamptz"
        }
        guard !value.isNull else { throw ParseError(.invalidQuery, "\(op) needs a value.") }
        let bound = try operand(value, column)
        if column.isSchemaless {
            // jsonb orders across types (a boolean is greater than any number); Parse compares like with like.
            return "(\(column.sql) \(sqlOp) \(bound) AND jsonb_typeof(\(column.sql)) = jsonb_typeof(\(bound)))"
        }
        return "\(column.sql) \(sqlOp) \(bound)"
    }

    /// `$in`: the column holds one of `value`'s items (an Array column, any of them). Public for the subqueries a
    /// service answers with the values another service found (ServiceKit's `ForeignSubqueries`).
    public func membership(_ value: JSONValue, _ column: QueryColumn, name: String) throws(ParseError) -> String {
        guard let items = value.arrayValue else { throw ParseError(.invalidJSON, "bad \(name) value") }
        // Still names the column: a path or key it binds must appear in the statement for its type to be known.
        if items.isEmpty { return "(\(column.sql) IS NULL AND FALSE)" }
        if column.isSchemaless {
            let values = items.filter { !$0.isNull }
            var parts: [String] = []
            if !values.isEmpty {
                let list = bind(JSONValue.array(values).compactText)
                // `IN` an uncorrelated list is hashed once per statement; a long list is then not walked per row.
                parts.append("\(column.sql) IN (SELECT wanted.value FROM jsonb_array_elements(\(list)::jsonb) AS wanted(value))")
                parts.append("(jsonb_typeof(\(column.sql)) = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements(\(list)::jsonb) AS wanted(value) WHERE \(column.sql) @> jsonb_build_array(wanted.value)))")
            }
            if values.count < items.count { parts.append("\(column.sql) IS NULL") }
            return "(" + parts.joined(separator: " OR ") + ")"
        }
        if column.type.kind == .array && !column.isNested {
            let list = bind(JSONValue.array(items).compactText)
            return "EXISTS (SELECT 1 FROM jsonb_array_elements(\(list)::jsonb) AS wanted(value) WHERE \(column.sql) @> jsonb_build_array(wanted.value))"
        }
        // One array parameter for the whole list: a statement takes at most 65,535 parameters, and a list of
        // any length is then one statement text to prepare.
        let outer = parameters
        parameters = SQLParameters()
        var allowsNull = false
        do {
            for item in items where !item.isNull { _ = try operand(item, column) }
            allowsNull = items.contains(where: \.isNull)
        } catch {
            parameters = outer
            throw error
        }
        let values = parameters.values.map { $0?.postgresText ?? "" }
        parameters = outer
        var parts: [String] = []
        if !values.isEmpty {
            let list = parameters.bind(PostgresArray.literal(values)) + "::\(column.type.columnType ?? "text")[]"
            parts.append("\(column.sql) = ANY(\(list))")
        }
        if allowsNull { parts.append("\(column.sql) IS NULL") }
        return "(" + parts.joined(separator: " OR ") + ")"
    }

    private func all(_ value: JSONValue, _ column: QueryColumn) throws(ParseError) -> String {
        guard let items = value.arrayValue else { throw ParseError(.invalidJSON, "bad $all value") }
        try requireArray(column, "$all")
        if items.contains(where: { $0["$regex"] != nil }) { return try allMatching(items, column) }
        return "\(column.sql) @> \(bind(JSONValue.array(items).compactText))::jsonb"
    }

    func requireArray(_ column: QueryColumn, _ op: String) throws(ParseError) {
        guard column.type.kind == .array || column.isNested || !column.exists else {
            throw ParseError(.invalidQuery, "\(op) applies to Array fields only.")
        }
    }
}
