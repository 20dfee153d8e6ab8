import ParseWire

/// The options of a find or get, read from the query string (each value JSON-parsed when it can be, as
/// parse-server does) and from a `_method: GET` body.
public struct QueryOptions: Sendable {
    public var whereClause: [String: JSONValue] = [:]
    public var limit: Int?
    public var skip = 0
    public var order: [String] = []
    public var keys: [String]?
    public var excludeKeys: [String] = []
    public var include: [String] = []
    public var count = false
    /// `explain`: answer the plan instead of the rows.
    public var explain = false
    public var hint: JSONValue?

    public static let findParameters: Set<String> = [
        "where", "limit", "skip", "order", "keys", "excludeKeys", "include", "includeAll", "count",
        "redirectClassNameForKey", "readPreference", "includeReadPreference", "subqueryReadPreference", "hint",
        "explain", "comment",
    ]
    public static let getParameters: Set<String> = [
        "keys", "include", "excludeKeys", "readPreference", "includeReadPreference", "subqueryReadPreference",
    ]

    /// Query-string values and body fields together; the body wins.
    public static func merge(query: [String: String], body: String?) throws(ParseError) -> [String: JSONValue] {
        var options: [String: JSONValue] = [:]
        for (key, text) in query {
            if key == "where" {
                switch JSONValue.parseReporting(text) {
                case .success(let value): options[key] = value
                case .failure(.numberOutOfRange): throw JSONSyntaxError.numberOutOfRange.parseError
                case .failure: throw ParseError(.invalidQuery, "Improper encode of parameter where: it is not valid JSON.")
                }
            } else {
                options[key] = JSONValue.parse(text) ?? .string(text)
            }
        }
        for (key, value) in try RequestBody.object(body) { options[key] = value }
        return options
    }

    public init(find options: [String: JSONValue]) throws(ParseError) {
        for key in options.keys where !Self.findParameters.contains(key) {
            throw ParseError(.invalidQuery, "Invalid parameter for query: \(key)")
        }
        if options["redirectClassNameForKey"] != nil {
            throw ParseError(.invalidQuery, "redirectClassNameForKey is not supported by this server.")
        }
        if let value = options["explain"] { explain = try Self.flag(value) }
        switch options["hint"] {
        case nil, .null?: break
        case let value?: hint = value
        }
        switch options["where"] {
        case nil, .null?: break
        case .object(let clause)?: whereClause = clause
        default: throw ParseError(.invalidQuery, "Improper encode of parameter where: it must be a JSON object.")
        }
        if let value = options["limit"] { limit = try Self.integer(value, "limit") }
        if let value = options["skip"] { skip = try Self.integer(value, "skip") }
        if let value = options["count"] { count = try Self.flag(value) }
        try readProjection(options)
        if let value = options["order"] { order = try Self.list(value, "order") }
        if options["includeAll"].map({ (try? Self.flag($0)) == true }) == true { include.append("*") }
    }

    public init(get options: [String: JSONValue]) throws(ParseError) {
        for key in options.keys where !Self.getParameters.contains(key) {
            throw ParseError(.invalidQuery, "Improper encode of parameter")
        }
        try readProjection(options)
    }

    private mutating func readProjection(_ options: [String: JSONValue]) throws(ParseError) {
        if let value = options["keys"] { keys = try Self.list(value, "keys") }
        if let value = options["excludeKeys"] { excludeKeys = try Self.list(value, "excludeKeys") }
        if let value = options["include"] { include = try Self.list(value, "include") }
    }

    /// `"a,b"` or `["a","b"]`.
    public static func list(_ value: JSONValue, _ name: String) throws(ParseError) -> [String] {
        switch value {
        case .string(let text):
            return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        case .array(let items):
            var names: [String] = []
            for item in items {
                guard let text = item.stringValue else { throw ParseError(.invalidQuery, "Improper encode of parameter \(name)") }
                names += text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            return names
        default:
            throw ParseError(.invalidQuery, "Improper encode of parameter \(name)")
        }
    }

    public static func integer(_ value: JSONValue, _ name: String) throws(ParseError) -> Int {
        let number = value.numberValue ?? value.stringValue.flatMap(Double.init)
        guard let number, number >= 0, number == number.rounded(), number < 1e15 else {
            throw ParseError(.invalidQuery, "Invalid value for \(name): it must be a non-negative integer.")
        }
        return Int(number)
    }

    public static func flag(_ value: JSONValue) throws(ParseError) -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .number(let number): return number != 0
        case .string(let text): return text == "1" || text == "true"
        default: throw ParseError(.invalidQuery, "Invalid value for count.")
        }
    }

    /// The fields every answer keeps whatever `keys` and `excludeKeys` say.
    public static let alwaysKept: Set<String> = ["objectId", "createdAt", "updatedAt", "ACL"]

    /// `object` cut down to `keys` (top-level names of dotted keys) and without `excludeKeys`.
    public func project(_ object: [String: JSONValue]) -> [String: JSONValue] {
        var object = object
        if let keys {
            // `$score` asks for the `$text` score, answered as `score`.
            let kept = Set(keys.map { $0 == "$score" ? "score" : String($0.split(separator: ".").first ?? "") }).union(Self.alwaysKept)
            object = object.filter { kept.contains($0.key) }
        }
        for key in excludeKeys where !Self.alwaysKept.contains(key) {
            object[key] = nil
        }
        return object
    }
}
