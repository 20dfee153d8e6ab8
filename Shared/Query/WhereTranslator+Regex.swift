import Foundation
import ParseWire

/// `$regex`, and `$all` of `$regex` values (the SDKs' `containsAllStartingWith`), through one translation:
/// `RegexPattern`.
extension WhereTranslator {
    func regex(_ value: JSONValue, options: JSONValue?, _ column: QueryColumn) throws(ParseError) -> String {
        guard let pattern = value.stringValue else { throw ParseError(.invalidQuery, "bad $regex value") }
        guard options == nil || options?.stringValue != nil else {
            throw ParseError(.invalidQuery, "Bad $options value for query: \(options?.compactText ?? "")")
        }
        let regex = try RegexPattern(pattern, options: options?.stringValue ?? "")
        guard column.type.kind == .string || column.isNested || !column.exists else {
            throw ParseError(.invalidQuery, "$regex applies to String fields only.")
        }
        // A value inside a document (a dotted path, a custom field) matches when it is a string.
        if column.isNested {
            return "(jsonb_typeof(\(column.sql)) = 'string' AND (\(column.sql) #>> '{}') \(regex.sqlOperator) \(bind(regex.postgresPattern)))"
        }
        return "\(column.sql) \(regex.sqlOperator) \(bind(regex.postgresPattern))"
    }

    /// Every pattern matches at least one string of the array. As in parse-server the values are all
    /// `{"$regex":...}` or none is.
    func allMatching(_ items: [JSONValue], _ column: QueryColumn) throws(ParseError) -> String {
        var patterns: [RegexPattern] = []
        for item in items {
            guard let fields = item.objectValue, let pattern = fields["$regex"]?.stringValue,
                  fields["$options"] == nil || fields["$options"]?.stringValue != nil else {
                throw ParseError(.invalidJSON, "All $all values must be of regex type or none: "
                                 + JSONValue.array(items).javaScriptText)
            }
            patterns.append(try RegexPattern(pattern, options: fields["$options"]?.stringValue ?? ""))
        }
        // A document field may hold anything; only an array has elements to match.
        let array = column.isNested || !column.exists
            ? "CASE WHEN jsonb_typeof(\(column.sql)) = 'array' THEN \(column.sql) END" : column.sql
        let conditions = patterns.map { pattern in
            "EXISTS (SELECT 1 FROM jsonb_array_elements(\(array)) AS element(value) "
                + "WHERE jsonb_typeof(element.value) = 'string' "
                + "AND (element.value #>> '{}') \(pattern.sqlOperator) \(bind(pattern.postgresPattern)))"
        }
        return "(" + conditions.joined(separator: " AND ") + ")"
    }
}

extension JSONValue {
    /// The value as JavaScript's `String(value)` prints it, which parse-server's messages quote: arrays joined
    /// with commas, objects as `[object Object]`, null as nothing.
    var javaScriptText: String {
        switch self {
        case .null: return ""
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number):
            if number == number.rounded(), abs(number) < 1e21 { return String(format: "%.0f", number) }
            return String(number)
        case .string(let text): return text
        case .array(let items): return items.map { $0.isNull ? "" : $0.javaScriptText }.joined(separator: ",")
        case .object: return "[object Object]"
        }
    }
}
