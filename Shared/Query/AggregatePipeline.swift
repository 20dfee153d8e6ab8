import ParseWire
import Storage

/// An aggregate pipeline as one parameterised SQL statement: each stage is a `SELECT` over the one before (kept in
/// the same `SELECT` where SQL's own clause order means the same thing: a `$sort`, `$skip` or `$limit` after a
/// `$group` is that group's `ORDER BY`, `OFFSET`, `LIMIT`). Leading `$match` stages are the class query's `WHERE`,
/// translated like a find's, so they use the class's indexes. The first `SELECT` is over a table aliased `t0`, with
/// each field an expression over it, so it serves any table a `FieldMapping` describes.
public struct AggregatePipeline {
    public struct Column: Sendable {
        public var name: String
        public var type: FieldType
        public init(name: String, type: FieldType) { self.name = name; self.type = type }
    }

    /// One `SELECT`: `columns` are `expression AS "name"` over `source` (aliased `alias`).
    public struct Select {
        var columns: [(sql: String, column: Column)]
        var source: String
        var alias: String
        /// Joined after the source (`$unwind`'s elements).
        var joins = ""
        var conditions: [String] = []
        var groupBy: [String] = []
        var orderBy: [String] = []
        var offset = 0
        var limit: Int?

        public var sql: String {
            var text = "SELECT " + columns.map { "\($0.sql) AS \(Names.quoted($0.column.name))" }.joined(separator: ", ")
            text += " FROM \(source) AS \(alias)" + joins
            if !conditions.isEmpty { text += " WHERE " + conditions.joined(separator: " AND ") }
            if !groupBy.isEmpty { text += " GROUP BY " + groupBy.joined(separator: ", ") }
            if !orderBy.isEmpty { text += " ORDER BY " + orderBy.joined(separator: ", ") }
            if offset > 0 { text += " OFFSET \(offset)" }
            if let limit { text += " LIMIT \(limit)" }
            return text
        }
    }

    public static let datePartNames: [String: String] = [
        "$dayOfMonth": "DAY", "$dayOfWeek": "DOW", "$dayOfYear": "DOY", "$isoDayOfWeek": "ISODOW", "$isoWeekYear": "ISOYEAR",
        "$hour": "HOUR", "$minute": "MINUTE", "$second": "SECOND", "$millisecond": "MILLISECONDS", "$month": "MONTH",
        "$week": "WEEK", "$year": "YEAR",
    ]

    public let translator = WhereTranslator()
    public private(set) var current: Select
    private var aliasCount = 0

    /// A pipeline over `table` (aliased `t0`) whose fields are `columns`, SQL expressions over `t0`.
    public init(table: String, columns: [(sql: String, column: Column)]) {
        current = Select(columns: columns, source: table, alias: "t0")
    }

    public var columns: [Column] { current.columns.map(\.column) }

    /// A date column as parse-server's ISO text.
    public static func dateText(_ sql: String) -> String {
        "to_char(\(sql) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
    }

    /// The stages of a pipeline in parse-server's forms: an array of one-key objects, or one object of stages.
    public static func stages(_ value: JSONValue) throws(ParseError) -> [(String, JSONValue)] {
        var stages: [(String, JSONValue)] = []
        switch value {
        case .array(let items):
            for item in items {
                guard let fields = item.objectValue, fields.count == 1, let (name, body) = fields.first else {
                    let keys = item.objectValue?.keys.sorted().joined(separator: ", ") ?? ""
                    throw ParseError(.invalidQuery, "Pipeline stages should only have one key but found \(keys).")
                }
                stages.append((name, body))
            }
        case .object(let fields):
            stages = fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        default:
            throw ParseError(.invalidQuery, "Invalid aggregate pipeline: it must be an array of stages.")
        }
        for (name, body) in stages {
            guard name.hasPrefix("$") else { throw ParseError(.invalidQuery, "Invalid aggregate stage '\(name)'.") }
            if name == "$group" {
                guard let group = body.objectValue, group["objectId"] == nil else {
                    throw ParseError(.invalidQuery, "Cannot use 'objectId' in aggregation stage $group.")
                }
                guard group["_id"] != nil else {
                    throw ParseError(.invalidQuery, "Invalid parameter for query: group. Missing key _id")
                }
            }
        }
        return stages
    }

    public mutating func apply(_ stage: String, _ body: JSONValue, mapping: any FieldMapping) async throws {
        switch stage {
        case "$match": try await match(body, mapping: mapping)
        case "$group": try group(body)
        case "$project": try project(body)
        case "$sort": try sort(body)
        case "$skip":
            let count = try QueryOptions.integer(body, "$skip")
            if current.limit != nil { wrap() }
            // `$skip` stages in a row add up; many large ones would pass what an `Int` (and `OFFSET`) holds.
            let (offset, overflow) = current.offset.addingReportingOverflow(count)
            guard !overflow else {
                throw ParseError(.invalidQuery, "Invalid value for $skip: the stages skip more rows than a query can.")
            }
            current.offset = offset
        case "$limit":
            let count = try QueryOptions.integer(body, "$limit")
            current.limit = min(current.limit ?? count, count)
        case "$count":
            guard let name = body.stringValue, Names.isValidFieldName(name) else {
                throw ParseError(.invalidQuery, "$count needs a field name.")
            }
            wrap(columns: [("count(*)::double precision", Column(name: name, type: FieldType(.number)))])
        case "$unwind": try unwind(body)
        default:
            throw ParseError(.invalidQuery, "The aggregate stage \(stage) is not supported by this server.")
        }
    }

    /// Starts a new `SELECT` over the current one, with `columns` (expressions over the new alias), or all of them.
    private mutating func wrap(columns: [(String, Column)]? = nil) {
        aliasCount += 1
        let alias = "s\(aliasCount)"
        let passed = self.columns.map { ("\(alias).\(Names.quoted($0.name))", $0) }
        current = Select(columns: columns ?? passed, source: "(\(current.sql))", alias: alias)
    }

    private var alias: String { current.alias }

    /// A `$field` reference (parse-server's `_p_` and `_created_at` spellings too) to a column of the current stage.
    private func reference(_ value: JSONValue, _ context: String) throws(ParseError) -> (sql: String, type: FieldType)? {
        guard var name = value.stringValue, name.hasPrefix("$") else {
            throw ParseError(.invalidQuery, "Invalid value in \(context): field references start with $.")
        }
        name.removeFirst()
        if name.hasPrefix("_p_") { name.removeFirst(3) }
        name = ["_id": "objectId", "_created_at": "createdAt", "_updated_at": "updatedAt"][name] ?? name
        guard Names.isValidFieldName(name) else { throw ParseError(.invalidKeyName, "Invalid key name: \(name)") }
        guard let column = columns.first(where: { $0.name == name }) else { return nil }
        return ("\(alias).\(Names.quoted(name))", column.type)
    }

    private mutating func match(_ body: JSONValue, mapping: any FieldMapping) async throws {
        guard var clause = body.objectValue else { throw ParseError(.invalidQuery, "$match needs an object.") }
        if let id = clause.removeValue(forKey: "_id") { clause["objectId"] = id }
        if current.alias == "t0" && current.offset == 0 && current.limit == nil {
            current.conditions.append(try await translator.translate(clause, mapping, alias: "t0"))
            return
        }
        wrap()
        let stageMapping = StageMapping(columns: columns)
        current.conditions.append(try await translator.translate(clause, stageMapping, alias: alias, topLevel: false))
    }

    private mutating func group(_ body: JSONValue) throws(ParseError) {
        guard let spec = body.objectValue, let id = spec["_id"] else {
            throw ParseError(.invalidQuery, "Invalid parameter for query: group. Missing key _id")
        }
        wrap()
        var output: [(String, Column)] = []
        var keyed = false
        if let key = try groupKey(id) {
            output.append((key.sql, Column(name: "objectId", type: key.type)))
            keyed = true
        } else {
            output.append(("NULL::text", Column(name: "objectId", type: FieldType(.string))))
        }
        for (name, accumulator) in spec.sorted(by: { $0.key < $1.key }) where name != "_id" {
            guard Names.isValidFieldName(name) else { throw ParseError(.invalidKeyName, "Invalid key name: \(name)") }
            output.append((try self.accumulator(accumulator, name), Column(name: name, type: try accumulatorType(accumulator))))
        }
        current.columns = output
        if keyed { current.groupBy = ["1"] }
    }

    /// The `_id` of a group as one SQL value: a field, a date part of one, or an object of those (as `jsonb`).
    private func groupKey(_ id: JSONValue) throws(ParseError) -> (sql: String, type: FieldType)? {
        switch id {
        case .null: return nil
        case .string(let text) where text.isEmpty: return nil
        case .string: return try reference(id, "$group") ?? ("NULL::text", FieldType(.string))
        case .object(let fields) where fields.count == 1 && fields.keys.first!.hasPrefix("$"):
            return try datePart(fields.keys.first!, fields.values.first!)
        case .object(let fields):
            guard !fields.isEmpty else { return nil }
            var pairs: [String] = []
            for (alias, value) in fields.sorted(by: { $0.key < $1.key }) {
                guard Names.isValidFieldName(alias) else { throw ParseError(.invalidKeyName, "Invalid key name: \(alias)") }
                let part: String
                if let operation = value.objectValue, operation.count == 1, let op = operation.keys.first {
                    part = try datePart(op, operation[op]!).sql
                } else {
                    let field = try reference(value, "$group")
                    part = field.map { Self.jsonExpression($0.sql, $0.type) } ?? "NULL::jsonb"
                }
                pairs.append("\(translator.bind(alias))::text, \(part)")
            }
            return ("jsonb_build_object(\(pairs.joined(separator: ", ")))", FieldType(.object))
        default:
            throw ParseError(.invalidQuery, "Invalid _id in $group: use a field, a date part or an object of them.")
        }
    }

    private func datePart(_ op: String, _ operand: JSONValue) throws(ParseError) -> (sql: String, type: FieldType) {
        guard let part = Self.datePartNames[op] else {
            throw ParseError(.invalidQuery, "The aggregate operator \(op) is not supported by this server.")
        }
        guard let field = try reference(operand, op) else { return ("NULL::integer", FieldType(.number)) }
        guard field.type.kind == .date else { throw ParseError(.invalidQuery, "\(op) needs a Date field.") }
        return ("EXTRACT(\(part) FROM \(field.sql) AT TIME ZONE 'UTC')::integer", FieldType(.number))
    }

    /// A value as it reads inside a `jsonb` object: dates as their ISO text.
    private static func jsonExpression(_ sql: String, _ type: FieldType) -> String {
        type.kind == .date ? "to_jsonb(\(dateText(sql)))" : "to_jsonb(\(sql))"
    }

    private func accumulator(_ value: JSONValue, _ name: String) throws(ParseError) -> String {
        guard let fields = value.objectValue, fields.count == 1, let (op, operand) = fields.first else {
            throw ParseError(.invalidQuery, "The field '\(name)' must be an accumulator object.")
        }
        switch op {
        case "$sum":
            if let number = operand.numberValue { return "(count(*) * \(translator.bind(number))::double precision)" }
            return "COALESCE(sum(\(try numeric(operand, op))), 0)"
        case "$avg": return "avg(\(try numeric(operand, op)))"
        case "$min", "$max":
            guard let field = try reference(operand, op) else { return "NULL::text" }
            guard field.type.columnType != nil, ![.object, .array, .bytes, .geoPoint, .polygon].contains(field.type.kind) else {
                throw ParseError(.invalidQuery, "\(op) needs a field of ordered values.")
            }
            return "\(op == "$min" ? "min" : "max")(\(field.sql))"
        case "$count": return "count(*)::double precision"
        default:
            throw ParseError(.invalidQuery, "The aggregate accumulator \(op) is not supported by this server.")
        }
    }

    private func accumulatorType(_ value: JSONValue) throws(ParseError) -> FieldType {
        guard let (op, operand) = value.objectValue?.first else { return FieldType(.number) }
        if op == "$min" || op == "$max" { return (try reference(operand, op))?.type ?? FieldType(.string) }
        return FieldType(.number)
    }

    private func numeric(_ operand: JSONValue, _ op: String) throws(ParseError) -> String {
        guard let field = try reference(operand, op) else { return "NULL::double precision" }
        guard field.type.kind == .number else { throw ParseError(.invalidQuery, "\(op) needs a Number field.") }
        return field.sql
    }

    private mutating func project(_ body: JSONValue) throws(ParseError) {
        guard let spec = body.objectValue, !spec.isEmpty else { throw ParseError(.invalidQuery, "$project needs an object of fields.") }
        var included: Set<String> = [], excluded: Set<String> = []
        for (name, value) in spec {
            let field = name == "_id" ? "objectId" : name
            switch value {
            case .bool(true), .number(1): included.insert(field)
            case .bool(false), .number(0): excluded.insert(field)
            default:
                throw ParseError(.invalidQuery, "$project of \(name): only 1 or 0 (true or false) is supported by this server.")
            }
        }
        guard included.subtracting(["objectId"]).isEmpty || excluded.subtracting(["objectId"]).isEmpty else {
            throw ParseError(.invalidQuery, "$project cannot both include and exclude fields.")
        }
        wrap()
        let keepAll = included.subtracting(["objectId"]).isEmpty
        current.columns = current.columns.filter { entry in
            let name = entry.column.name
            if excluded.contains(name) { return false }
            return keepAll || included.contains(name) || name == "objectId"
        }
    }

    private mutating func sort(_ body: JSONValue) throws(ParseError) {
        guard let spec = body.objectValue, !spec.isEmpty else { throw ParseError(.invalidQuery, "$sort needs an object of fields.") }
        if current.offset > 0 || current.limit != nil { wrap() }
        var terms: [String] = []
        // JSON objects have no order of their own here: the keys are taken in name order.
        for (name, direction) in spec.sorted(by: { $0.key < $1.key }) {
            guard let number = direction.numberValue, number == 1 || number == -1 else {
                throw ParseError(.invalidQuery, "$sort of \(name) must be 1 or -1.")
            }
            let field = name == "_id" ? "objectId" : name
            guard Names.isValidFieldName(field) else { throw ParseError(.invalidKeyName, "Invalid key name: \(name)") }
            guard let index = current.columns.firstIndex(where: { $0.column.name == field }) else { continue }
            terms.append("\(index + 1) \(number == 1 ? "ASC" : "DESC")")
        }
        current.orderBy = terms
    }

    /// `$unwind`: one row per element of an Array field (a single value counts as one element), with
    /// `preserveNullAndEmptyArrays` keeping the rows that have none.
    private mutating func unwind(_ body: JSONValue) throws(ParseError) {
        let path = body.objectValue == nil ? body : body["path"] ?? .null
        let preserve = body["preserveNullAndEmptyArrays"]?.boolValue ?? false
        guard let field = try reference(path, "$unwind") else {
            if !preserve { current.conditions.append("FALSE") }
            return
        }
        guard field.type.kind == .array || field.type.kind == .object else { return }
        let name = String(path.stringValue!.dropFirst())
        wrap()
        let elements = "\(alias)_e"
        let column = "\(alias).\(Names.quoted(name))"
        let array = "CASE WHEN \(column) IS NULL THEN '[]'::jsonb WHEN jsonb_typeof(\(column)) = 'array' THEN \(column) ELSE jsonb_build_array(\(column)) END"
        current.joins = " \(preserve ? "LEFT" : "CROSS") JOIN LATERAL jsonb_array_elements(\(array)) AS \(elements)(value)\(preserve ? " ON TRUE" : "")"
        current.columns = current.columns.map { entry in
            entry.column.name == name ? ("\(elements).value", Column(name: name, type: FieldType(.object))) : entry
        }
    }
}

/// The columns of a pipeline stage, for the `$match` stages after the first reshaping one.
struct StageMapping: FieldMapping {
    let columns: [AggregatePipeline.Column]

    func column(_ name: String, alias: String, translator: WhereTranslator) throws(ParseError) -> QueryColumn? {
        guard let column = columns.first(where: { $0.name == name }) else { return nil }
        return QueryColumn(sql: "\(alias).\(Names.quoted(name))", type: column.type)
    }
}
