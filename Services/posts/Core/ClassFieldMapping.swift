import Contracts
import ParseWire
import Query
import ServiceKit
import Storage

/// The fields of a class posts stores: one typed column per schema field in `classes."<name>"`, relations in
/// join tables, and subqueries over other classes under the caller's permissions.
struct ClassFieldMapping: FieldMapping {
    let schema: ClassSchema
    let identity: Identity
    let loadSchema: (String) async throws -> ClassSchema?
    /// Subqueries over classes another service owns (`ServiceName.owner(ofClass:)`), asked of it; nil where no bus
    /// is at hand (tests, tools), which then answer them as over a class that does not exist here.
    var foreign: ForeignSubqueries? = nil

    func column(_ name: String, alias: String, translator: WhereTranslator) throws(ParseError) -> QueryColumn? {
        guard let type = schema.type(of: name) else { return nil }
        guard type.kind != .acl else { throw ParseError(.invalidQuery, "Cannot query on ACL.") }
        if type.kind == .relation {
            return QueryColumn(sql: "\(alias).\"objectId\"", type: type,
                               relationTable: Names.joinTable(field: name, className: schema.className))
        }
        return QueryColumn(sql: "\(alias).\(Names.quoted(name))", type: type)
    }

    /// The condition that keeps rows the caller may not read out; nil for the master key.
    func readFilter(alias: String, translator: WhereTranslator) -> String? {
        let filters = [AccessControl.readFilter(identity, &translator.parameters, table: alias),
                       PointerPermissions.restriction("find", schema: schema, identity: identity, alias: alias, &translator.parameters)]
        let present = filters.compactMap { $0 }
        return present.isEmpty ? nil : present.joined(separator: " AND ")
    }

    func relatedTo(owner: String, ownerId: String, key: String, alias: String, translator: WhereTranslator) async throws -> String {
        guard Names.isValidClassName(owner), Names.isValidFieldName(key) else {
            throw ParseError(.invalidKeyName, "Invalid key name: \(key)")
        }
        guard let ownerSchema = try await loadSchema(owner), ownerSchema.fields[key]?.kind == .relation else { return "FALSE" }
        return "\(alias).\"objectId\" IN (SELECT \"relatedId\" FROM \(Names.joinTable(field: key, className: owner)) WHERE \"owningId\" = \(translator.bind(ownerId)))"
    }

    func subquery(_ op: String, _ operand: JSONValue, _ column: QueryColumn, translator: WhereTranslator) async throws -> String {
        let inner = (op == "$select" || op == "$dontSelect" ? operand["query"]?["className"] : operand["className"])?.stringValue
        if let inner, let foreign, ServiceName.owner(ofClass: inner) != .posts {
            return try await foreign.condition(op, operand, column, translator: translator)
        }
        switch op {
        case "$select", "$dontSelect": return try await select(operand, column, name: op, translator)
        default: return try await inQuery(operand, column, name: op, translator)
        }
    }

    /// The rows of the class a subquery names, as `(mapping, alias, "FROM ... WHERE ...")`; nil when the class
    /// does not exist.
    private func subquery(_ query: JSONValue?, name: String,
                          _ translator: WhereTranslator) async throws -> (ClassFieldMapping, String, String)? {
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
        guard let schema = try await loadSchema(className) else { return nil }
        // A subquery reads the other class: its `find` permission applies as to a query of its own.
        try ClassPermissions.check("find", schema: schema, identity: identity)
        let mapping = ClassFieldMapping(schema: schema, identity: identity, loadSchema: loadSchema, foreign: foreign)
        let alias = translator.newAlias()
        var condition = try await translator.translate(clause, mapping, alias: alias, topLevel: false)
        if let filter = mapping.readFilter(alias: alias, translator: translator) { condition += " AND " + filter }
        return (mapping, alias, "FROM \(Names.table(className)) AS \(alias) WHERE \(condition)")
    }

    private func select(_ value: JSONValue, _ column: QueryColumn, name: String, _ translator: WhereTranslator) async throws -> String {
        guard let fields = value.objectValue, fields.count == 2, let key = fields["key"]?.stringValue, fields["query"] != nil else {
            throw ParseError(.invalidQuery, "improper usage of \(name)")
        }
        guard let (mapping, alias, from) = try await subquery(fields["query"], name: name, translator) else { return "FALSE" }
        let keyColumn = try translator.column(key, mapping, alias: alias, sample: nil)
        // No row has the key: nothing matches. The subquery stays in the statement, for the types of the values it
        // bound (PostgreSQL refuses a parameter nothing uses: 42P18).
        guard keyColumn.exists else { return "(FALSE AND EXISTS (SELECT 1 \(from)))" }
        return "\(column.sql)::text IN (SELECT \(keyColumn.sql)::text \(from))"
    }

    private func inQuery(_ value: JSONValue, _ column: QueryColumn, name: String, _ translator: WhereTranslator) async throws -> String {
        guard let fields = value.objectValue, fields["className"]?.stringValue != nil,
              fields["where"] == nil || fields["where"]?.objectValue != nil || fields["where"]?.isNull == true else {
            throw ParseError(.invalidQuery, "improper usage of \(name)")
        }
        // Decided before the subquery binds anything: a statement that binds values it never uses is refused.
        guard column.type.kind == .pointer || column.type.kind == .array else {
            guard column.exists else { return "FALSE" }
            throw ParseError(.invalidQuery, "\(name) applies to Pointer fields only.")
        }
        guard let (_, alias, from) = try await subquery(value, name: name, translator) else { return "FALSE" }
        if column.type.kind == .pointer {
            return "\(column.sql) IN (SELECT \(alias).\"objectId\" \(from))"
        }
        return "EXISTS (SELECT 1 \(from) AND \(column.sql) @> jsonb_build_array(jsonb_build_object('objectId', \(alias).\"objectId\")))"
    }
}
