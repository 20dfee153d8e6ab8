import ParseWire
import Query

/// `hint`: parse-server hands it to MongoDB, which fails a query whose hint names no index. PostgreSQL has no
/// hints and its planner picks the index itself, so a hint naming an index of the class is accepted as it is,
/// and one naming none is refused the way MongoDB refuses it, rather than silently ignored.
enum QueryHint {
    static func check(_ hint: JSONValue, schema: ClassSchema) throws(ParseError) {
        switch hint {
        case .string(let name):
            guard name == "_id_" || schema.indexes[name] != nil else {
                throw ParseError(.invalidQuery, "hint provided does not correspond to an existing index: \(name)")
            }
        case .object:
            let matches = hint.compactText == JSONValue.object(["_id": .number(1)]).compactText
                || schema.indexes.values.contains { $0.compactText == hint.compactText }
            guard matches else {
                throw ParseError(.invalidQuery, "hint provided does not correspond to an existing index: \(hint.compactText)")
            }
        default:
            throw ParseError(.invalidQuery, "hint must be an index name or an index specification.")
        }
    }
}
