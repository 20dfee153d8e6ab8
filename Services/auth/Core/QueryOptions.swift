import Contracts
import Foundation
import ParseWire

/// The query parameters of `GET /users`, `/roles`, `/sessions` (parse-server's list), from the query string
/// or from a JSON body sent with `_method: GET`.
struct QueryOptions: Sendable {
    static let allowedKeys: Set<String> = [
        "where", "limit", "skip", "order", "keys", "excludeKeys", "include", "includeAll", "count",
        "redirectClassNameForKey", "readPreference", "includeReadPreference", "subqueryReadPreference", "hint",
        "explain", "comment",
    ]
    static let defaultLimit = 100
    /// parse-server has no maximum by default; this one only keeps a single answer to a sane size.
    static let maximumLimit = 10_000

    var constraints: [String: JSONValue] = [:]
    var limit = defaultLimit
    var skip = 0
    var order: [(field: String, descending: Bool)] = []
    var count = false

    init(_ request: AuthRequest) throws {
        var values: [String: JSONValue] = [:]
        for (key, text) in request.query {
            // Like parse-server: a query-string value is JSON when it parses as JSON, else a string.
            values[key] = JSONValue.parse(text) ?? .string(text)
        }
        if request.method != "GET" || values.isEmpty {
            for (key, value) in try request.body() { values[key] = value }
        }
        for key in values.keys where !Self.allowedKeys.contains(key) {
            throw ParseError(.invalidQuery, "Invalid parameter for query: \(key)")
        }
        if let whereValue = values["where"] {
            guard let object = whereValue.objectValue else {
                throw ParseError(.invalidQuery, "where must be a JSON object")
            }
            constraints = object
        }
        if let value = values["limit"] {
            guard let number = value.numberValue ?? value.stringValue.flatMap(Double.init), number.isFinite else {
                throw ParseError(.invalidQuery, "Invalid parameter for query: limit")
            }
            // Clamped as a Double first: converting a huge number such as 1e300 to Int would trap.
            limit = Int(max(0, min(Double(Self.maximumLimit), number)))
        }
        if let value = values["skip"] {
            guard let number = value.numberValue ?? value.stringValue.flatMap(Double.init), number.isFinite, number >= 0,
                  number < 1e12 else {
                throw ParseError(.invalidQuery, "Invalid parameter for query: skip")
            }
            skip = Int(number)
        }
        if let value = values["order"] {
            let names: [String]
            if let text = value.stringValue { names = text.split(separator: ",").map(String.init) }
            else if let list = value.arrayValue { names = list.compactMap(\.stringValue).flatMap { $0.split(separator: ",").map(String.init) } }
            else { throw ParseError(.invalidQuery, "Invalid parameter for query: order") }
            for raw in names {
                let trimmed = raw.trimmingCharacters(in: .whitespaces)
                let descending = trimmed.hasPrefix("-")
                let field = descending ? String(trimmed.dropFirst()) : trimmed
                guard FieldName.isValid(field) else { throw ParseError(.invalidKeyName, "Invalid field name: \(field).") }
                order.append((field, descending))
            }
        }
        if let value = values["count"] {
            count = value.boolValue ?? (value.numberValue.map { $0 != 0 }) ?? (value.stringValue.map { $0 == "1" || $0 == "true" }) ?? false
        }
    }

    /// The value of a plain equality constraint, or nil when `value` uses an operator (`$eq` counts as equality).
    static func equalityValue(_ value: JSONValue) throws -> JSONValue {
        guard let object = value.objectValue, let operatorKey = object.keys.first(where: { $0.hasPrefix("$") }) else {
            return value
        }
        if object.count == 1, operatorKey == "$eq", let operand = object["$eq"] { return operand }
        throw ParseError(.invalidQuery,
                         "The operator \(operatorKey) is not supported on this class yet; only equality constraints are.")
    }
}
