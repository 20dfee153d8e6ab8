import ParseWire

/// A query on `_JobStatus` (`GET /classes/_JobStatus`), the part of Parse's query language its readers use:
/// equality (also as `$eq`) and `$in` on its fields, `order` by `createdAt`, `limit`, `skip`, `count`.
struct JobStatusQuery: Sendable {
    var objectIds: [String]?
    var constraints: [String: JSONValue] = [:]
    var ascending = false
    var limit = 100
    var skip = 0
    var count = false

    init(query: [String: String]) throws {
        if let whereText = query["where"] {
            guard let fields = JSONValue.parse(whereText)?.objectValue else {
                throw ParseError(.invalidJSON, "Invalid JSON")
            }
            for (field, value) in fields {
                if field == "objectId" {
                    if let id = value.stringValue ?? value["$eq"]?.stringValue {
                        objectIds = [id]
                    } else if let ids = value["$in"]?.arrayValue {
                        objectIds = ids.compactMap(\.stringValue)
                    } else {
                        throw Self.unsupported
                    }
                } else if let operators = value.objectValue?.keys.filter({ $0.hasPrefix("$") }), !operators.isEmpty,
                          operators != ["$in"], operators != ["$eq"] {
                    throw Self.unsupported
                } else {
                    constraints[field] = value
                }
            }
        }
        if let order = query["order"] {
            guard ["createdAt", "-createdAt"].contains(order) else { throw Self.unsupported }
            ascending = order == "createdAt"
        }
        if let text = query["limit"] {
            guard let value = Int(text), value >= 0 else { throw ParseError(.invalidQuery, "Invalid limit.") }
            limit = min(value, 1_000)
        }
        if let text = query["skip"] {
            guard let value = Int(text), value >= 0 else { throw ParseError(.invalidQuery, "Invalid skip.") }
            skip = value
        }
        count = query["count"] == "1" || query["count"] == "true"
    }

    func matches(_ row: JSONValue) -> Bool {
        constraints.allSatisfy { field, wanted in
            let value = row[field] ?? .null
            if let options = wanted["$in"]?.arrayValue { return options.contains(value) }
            if let equal = wanted["$eq"] { return value == equal }
            return value == wanted
        }
    }

    static let unsupported = ParseError(.invalidQuery, "This query is not supported on _JobStatus.")
}
