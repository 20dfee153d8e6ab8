/// Where a field's value is read from in SQL, and how to compare with it.
public struct QueryColumn: Sendable {
    /// An SQL expression over the row (`t0."name"`, `t0.username`); it only ever holds validated names and
    /// bound parameters.
    public var sql: String
    /// The stored type; a field inside an Object (or a schemaless document) is `jsonb`, typed `Object` here.
    public var type: FieldType
    /// A `jsonb` value read from inside a document (a dotted path), compared as JSON.
    public var isNested: Bool
    /// False for a field the class does not have: it is null on every row.
    public var exists: Bool
    /// A `jsonb` value whose type is known only row by row (custom fields of a table without a schema): JSON null
    /// reads as SQL NULL, comparisons hold only between values of the same JSON type, and an array matches
    /// equality with any of its elements, as parse-server's typed columns do.
    public var isSchemaless: Bool
    /// For a Relation field: the join table (`"owningId"`, `"relatedId"`) whose owners `sql` (the row's objectId)
    /// is looked up in.
    public var relationTable: String?
    /// For a path into the objects of an Array field (`fooStack.status`): the array and the alias its elements are
    /// read under; `sql` reads the path from one element (`<alias>.value`).
    public var arrayElements: (array: String, alias: String)?

    public init(sql: String, type: FieldType, isNested: Bool = false, exists: Bool = true, isSchemaless: Bool = false,
                relationTable: String? = nil) {
        self.sql = sql
        self.type = type
        self.isNested = isNested
        self.exists = exists
        self.isSchemaless = isSchemaless
        self.relationTable = relationTable
    }

    /// A custom field kept in a `jsonb` document column (`t0.fields -> 'name'`); `key` is the bound name.
    public static func schemaless(document: String, key: String) -> QueryColumn {
        QueryColumn(sql: "NULLIF(\(document) -> \(key), 'null'::jsonb)", type: FieldType(.object), isNested: true,
                    isSchemaless: true)
    }
}
