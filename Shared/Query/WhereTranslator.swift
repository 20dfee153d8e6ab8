import ParseWire
import Storage

/// Turns a Parse `where` into a parameterised SQL condition. Names are validated before they are quoted into
/// the text; every value is a bound parameter. An operator it cannot serve faithfully is a 102, never a guess.
/// Where a field lives is the `FieldMapping`'s business, so the same translation serves typed per-class tables
/// and tables with fixed columns plus a `jsonb` document of custom fields.
public final class WhereTranslator {
    public var parameters = SQLParameters()
    private var aliasCount = 0
    /// Top-level fields the query filters on, so they can be indexed.
    public private(set) var filteredFields: [String] = []
    /// `ORDER BY` terms the query asks for by itself (`$nearSphere` sorts by distance), used when `order` is absent.
    public internal(set) var distanceOrder: [String] = []
    /// The fields `$text` searches, with their language, so they can be indexed.
    public internal(set) var textSearches: [(field: String, language: String)] = []
    /// The score of the first `$text` search, for `order=$score` and `keys=$score`.
    public internal(set) var textScore: String?

    public init() {}

    /// A fresh table alias for a subquery (`t1`, `t2`...); the outer query is `t0`.
    public func newAlias() -> String {
        aliasCount += 1
        return "t\(aliasCount)"
    }

    public func bind(_ value: (any PostgresBindable)?) -> String { parameters.bind(value) }

    /// The condition for `clause` on rows named `alias`; "TRUE" when empty.
    public func translate(_ clause: [String: JSONValue], _ mapping: any FieldMapping, alias: String,
                          topLevel: Bool = true) async throws -> String {
        var parts: [String] = []
        for (key, value) in clause.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "$or", "$and", "$nor":
                parts.append(try await logical(key, value, mapping, alias))
            case "$relatedTo":
                parts.append(try await relatedTo(value, mapping, alias))
            case "ACL":
                throw ParseError(.invalidQuery, "Cannot query on ACL.")
            default:
                // As parse-server's query validation: only the operators above may start with `$`.
                if key.hasPrefix("$") { throw ParseError(.invalidKeyName, "Invalid key name: \(key)") }
                let column = try column(key, mapping, alias: alias, sample: value, intoArrays: true)
                if topLevel && !key.contains(".") { filteredFields.append(key) }
                if column.arrayElements != nil {
                    parts.append(try await arrayElementConstraint(value, column, mapping, field: key))
                } else {
                    parts.append(try await constraint(value, column, mapping, field: key))
                }
            }
        }
        return parts.isEmpty ? "TRUE" : parts.joined(separator: " AND ")
    }

    private func logical(_ key: String, _ value: JSONValue, _ mapping: any FieldMapping, _ alias: String) async throws -> String {
        guard let items = value.arrayValue, key != "$nor" || !items.isEmpty else {
            if key == "$nor" { throw ParseError(.invalidQuery, "Bad $nor format - use an array of at least 1 value.") }
            throw ParseError(.invalidQuery, "Bad \(key) format - use an array value.")
        }
        var parts: [String] = []
        for item in items {
            guard let sub = item.objectValue else { throw ParseError(.invalidQuery, "Bad \(key) format - use an array value.") }
            parts.append("(" + (try await translate(sub, mapping, alias: alias, topLevel: false)) + ")")
        }
        if parts.isEmpty { return key == "$and" ? "TRUE" : "FALSE" }
        switch key {
        case "$or": return "(" + parts.joined(separator: " OR ") + ")"
        case "$and": return "(" + parts.joined(separator: " AND ") + ")"
        // A comparison with a missing field is NULL, not FALSE: without COALESCE the row would fall out of $nor.
        default: return "NOT COALESCE(" + parts.joined(separator: " OR ") + ", FALSE)"
        }
    }

    private func relatedTo(_ value: JSONValue, _ mapping: any FieldMapping, _ alias: String) async throws -> String {
        guard let object = value["object"], object["__type"]?.stringValue == "Pointer",
              let owner = object["className"]?.stringValue, let ownerId = object["objectId"]?.stringValue,
              let key = value["key"]?.stringValue else {
            throw ParseError(.invalidQuery, "improper usage of $relatedTo")
        }
        return try await mapping.relatedTo(owner: owner, ownerId: ownerId, key: key, alias: alias, translator: self)
    }

    // MARK: columns

    /// The column for `key`, a field name or a dotted path into an Object field (`meta.size`, `tags.0`).
    /// `sample` is the value the field is compared with, to type a field the class does not have.
    /// With `intoArrays`, a path into the objects of an Array field reads one element (`QueryColumn.arrayElements`);
    /// only a `where` constraint knows how to range over the elements, so other callers get a 102 for it.
    public func column(_ key: String, _ mapping: any FieldMapping, alias: String, sample: JSONValue?,
                       intoArrays: Bool = false) throws(ParseError) -> QueryColumn {
        let path = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard path.allSatisfy({ Names.isValidFieldName($0) || $0.allSatisfy(\.isNumber) && !$0.isEmpty }),
              Names.isValidFieldName(path[0]) else {
            throw ParseError(.invalidKeyName, "Invalid key name: \(key)")
        }
        let name = path[0]
        if path.count > 1 {
            guard let base = try mapping.column(name, alias: alias, translator: self) else {
                return QueryColumn(sql: "NULL::jsonb", type: FieldType(.object), isNested: true, exists: false)
            }
            if intoArrays, base.type.kind == .array, !base.isSchemaless, let key = path.dropFirst().first,
               !key.allSatisfy(\.isNumber) {
                // A path into an array's objects matches if one of its elements matches, as in MongoDB
                // (`arrayElementConstraint`).
                let element = newAlias()
                let pathParameter = parameters.bindTextArray(Array(path.dropFirst()))
                var column = QueryColumn(sql: "NULLIF(\(element).value #> \(pathParameter), 'null'::jsonb)",
                                         type: FieldType(.object), isNested: true, isSchemaless: true)
                column.arrayElements = (base.sql, element)
                return column
            }
            guard base.isSchemaless || base.type.kind == .object else {
                throw ParseError(.invalidQuery, "Cannot query on a sub-key of \(name): it is not an Object field.")
            }
            let pathParameter = parameters.bindTextArray(Array(path.dropFirst()))
            if base.isSchemaless {
                return QueryColumn(sql: "NULLIF(\(base.sql) #> \(pathParameter), 'null'::jsonb)", type: FieldType(.object),
                                   isNested: true, isSchemaless: true)
            }
            return QueryColumn(sql: "(\(base.sql) #> \(pathParameter))", type: FieldType(.object), isNested: true)
        }
        if let column = try mapping.column(name, alias: alias, translator: self) { return column }
        let guessed = Self.guessType(sample) ?? FieldType(.string)
        return QueryColumn(sql: "NULL::\(guessed.columnType ?? "text")", type: guessed, exists: false)
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

    /// `ORDER BY` terms for `order` (`-name` descends); fields the class does not have are dropped, as in
    /// parse-server; invalid names are a 105.
    public func orderTerms(_ order: [String], _ mapping: any FieldMapping, alias: String) throws(ParseError) -> [String] {
        var terms: [String] = []
        for key in order {
            let descending = key.hasPrefix("-")
            let name = descending ? String(key.dropFirst()) : key
            if name == "$score" { continue }
            guard Names.isValidFieldName(name) else { throw ParseError(.invalidKeyName, "Invalid field name: \(name).") }
            guard let column = try mapping.column(name, alias: alias, translator: self) else { continue }
            terms.append(column.sql + (descending ? " DESC" : " ASC"))
        }
        return terms
    }
}
