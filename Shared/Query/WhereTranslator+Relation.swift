import ParseWire

/// Equality and membership on a Relation field, as parse-server reduces them: the objects whose relation holds
/// the given pointer (`{"likes": <Pointer>}`), any of them (`$in`), or none of them (`$ne`, `$nin`).
extension WhereTranslator {
    func relation(_ value: JSONValue, _ column: QueryColumn, table: String) throws(ParseError) -> String {
        guard let fields = value.objectValue, fields.keys.contains(where: { $0.hasPrefix("$") }) else {
            return try owners(of: [value], column, table: table)
        }
        var parts: [String] = []
        for (op, operand) in fields.sorted(by: { $0.key < $1.key }) {
            switch op {
            case "$eq": parts.append(try owners(of: [operand], column, table: table))
            case "$ne": parts.append("NOT " + (try owners(of: [operand], column, table: table)))
            case "$in", "$nin":
                guard let items = operand.arrayValue else { throw ParseError(.invalidJSON, "bad \(op) value") }
                let condition = try owners(of: items, column, table: table)
                parts.append(op == "$in" ? condition : "NOT " + condition)
            default:
                throw ParseError(.invalidQuery, "Query a Relation field with $relatedTo, equality, $in, $nin or $ne (not \(op)).")
            }
        }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " AND ") + ")"
    }

    /// The rows whose relation holds any of `pointers`.
    private func owners(of pointers: [JSONValue], _ column: QueryColumn, table: String) throws(ParseError) -> String {
        var ids: [String] = []
        for pointer in pointers {
            guard pointer["__type"]?.stringValue == "Pointer", let id = pointer["objectId"]?.stringValue else {
                throw ParseError(.invalidQuery, "A Relation field is compared with Pointers only.")
            }
            ids.append(id)
        }
        guard column.exists else { return "FALSE" }
        let list = parameters.bindTextArray(ids)
        return "\(column.sql) IN (SELECT \"owningId\" FROM \(table) WHERE \"relatedId\" = ANY(\(list)))"
    }
}
