import ParseWire

/// How the fields of one class map to SQL, for `WhereTranslator`: which expression holds a field and its Parse
/// type, and the operators that depend on how the class is stored (relations, queries over other classes).
public protocol FieldMapping {
    /// The column of top-level field `name` (already a valid identifier) on rows named `alias`; nil when the
    /// class has no such field (it is null on every row). Throws for a field that may not be queried.
    func column(_ name: String, alias: String, translator: WhereTranslator) throws(ParseError) -> QueryColumn?

    /// `$relatedTo`: the condition that the row is in relation `key` of object `ownerId` of class `owner`.
    func relatedTo(owner: String, ownerId: String, key: String, alias: String, translator: WhereTranslator) async throws -> String

    /// `$inQuery`, `$notInQuery`, `$select`, `$dontSelect` on `column` (the condition for the positive form;
    /// the translator negates it for the others).
    func subquery(_ op: String, _ operand: JSONValue, _ column: QueryColumn, translator: WhereTranslator) async throws -> String
}

extension FieldMapping {
    public func relatedTo(owner: String, ownerId: String, key: String, alias: String,
                          translator: WhereTranslator) async throws -> String {
        throw ParseError(.invalidQuery, "improper usage of $relatedTo")
    }

    public func subquery(_ op: String, _ operand: JSONValue, _ column: QueryColumn,
                         translator: WhereTranslator) async throws -> String {
        throw ParseError(.invalidQuery, "The query operator \(op) is not supported on this class by this server.")
    }
}
