import Query

extension AggregatePipeline {
    /// A pipeline over a class table: its typed columns, under the field names.
    init(schema: ClassSchema) {
        var columns: [(sql: String, column: Column)] = []
        for name in ["objectId", "createdAt", "updatedAt"] + schema.fields.keys.sorted() {
            guard let type = schema.type(of: name), type.columnType != nil else { continue }
            columns.append(("t0.\(Names.quoted(name))", Column(name: name, type: type)))
        }
        self.init(table: Names.table(schema.className), columns: columns)
    }
}
