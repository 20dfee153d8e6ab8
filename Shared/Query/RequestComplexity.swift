import Contracts
import ParseWire
import Runtime

/// parse-server 9's `requestComplexity` limits on a query, read from the same variables
/// (`PARSE_SERVER_REQUEST_COMPLEXITY_*`) with the same defaults (-1: no limit) and answered with the same errors
/// (102) before any work. The master key (read-only too) is not limited, as in parse-server's `RestQuery`.
public struct RequestComplexity: Sendable, Equatable {
    /// Include paths counted after `a.b.c` became `a`, `a.b` and `a.b.c`, as parse-server counts them.
    public var includeCount = -1
    /// Segments of the longest include path.
    public var includeDepth = -1
    /// Nesting of `$or`, `$and` and `$nor`, wherever they are in the where clause.
    public var queryDepth = -1
    /// Nesting of `$inQuery`, `$notInQuery`, `$select` and `$dontSelect`, across services too.
    public var subqueryDepth = -1

    public static let unlimited = RequestComplexity()

    public init(includeCount: Int = -1, includeDepth: Int = -1, queryDepth: Int = -1, subqueryDepth: Int = -1) {
        self.includeCount = includeCount
        self.includeDepth = includeDepth
        self.queryDepth = queryDepth
        self.subqueryDepth = subqueryDepth
    }

    public static func fromEnvironment(_ env: Environment = Environment()) throws -> RequestComplexity {
        func limit(_ name: String) throws -> Int {
            let key = "PARSE_SERVER_REQUEST_COMPLEXITY_" + name
            let value = try env.int(key, default: -1, in: -1...Int.max)
            guard value != 0 else { throw ConfigurationError("\(key) must be a positive integer or -1 to disable, got 0") }
            return value
        }
        return RequestComplexity(includeCount: try limit("INCLUDE_COUNT"), includeDepth: try limit("INCLUDE_DEPTH"),
                                 queryDepth: try limit("QUERY_DEPTH"), subqueryDepth: try limit("SUBQUERY_DEPTH"))
    }

    /// Refuses `include` (with `*` already replaced by the fields it names) beyond the include limits.
    public func check(include paths: [String], identity: Identity) throws(ParseError) {
        guard !Self.bypasses(identity), includeCount != -1 || includeDepth != -1, !paths.isEmpty else { return }
        var expanded = Set<String>()
        var deepest = 0
        for path in paths {
            let parts = path.split(separator: ".", omittingEmptySubsequences: false)
            deepest = max(deepest, parts.count)
            for end in 1...parts.count { expanded.insert(parts[..<end].joined(separator: ".")) }
        }
        if includeDepth != -1, deepest > includeDepth {
            throw ParseError(.invalidQuery, "Include depth of \(deepest) exceeds maximum allowed depth of \(includeDepth)")
        }
        if includeCount != -1, expanded.count > includeCount {
            throw ParseError(.invalidQuery,
                             "Number of include fields (\(expanded.count)) exceeds maximum allowed (\(includeCount))")
        }
    }

    /// Refuses a where clause nested beyond the query and subquery limits; `subqueryDepth` is how deep the query
    /// itself is in an outer one (0 for a client's query).
    public func check(where clause: [String: JSONValue], subqueryDepth start: Int = 0,
                      identity: Identity) throws(ParseError) {
        guard !Self.bypasses(identity) else { return }
        if subqueryDepth != -1, start > subqueryDepth { throw subqueryTooDeep }
        guard queryDepth != -1 || subqueryDepth != -1 else { return }
        try walk(.object(clause), logical: 0, subqueries: start)
    }

    /// The logical depth alone, for a LiveQuery subscription of a client without the master key (parse-server
    /// checks it there too).
    public func check(subscription clause: [String: JSONValue]) throws(ParseError) {
        guard queryDepth != -1 else { return }
        try RequestComplexity(queryDepth: queryDepth).walk(.object(clause), logical: 0, subqueries: 0)
    }

    private static let logicalOperators: Set<String> = ["$or", "$and", "$nor"]
    private static let subqueryOperators: Set<String> = ["$inQuery", "$notInQuery", "$select", "$dontSelect"]

    private var subqueryTooDeep: ParseError {
        ParseError(.invalidQuery, "Subquery nesting depth exceeds maximum allowed depth of \(subqueryDepth)")
    }

    /// Descends into every value, as parse-server does, so an operator under a field or another operator counts.
    private func walk(_ node: JSONValue, logical: Int, subqueries: Int) throws(ParseError) {
        if queryDepth != -1, logical > queryDepth {
            throw ParseError(.invalidQuery, "Query condition nesting depth exceeds maximum allowed depth of \(queryDepth)")
        }
        if subqueryDepth != -1, subqueries > subqueryDepth { throw subqueryTooDeep }
        switch node {
        case .array(let items):
            for item in items { try walk(item, logical: logical, subqueries: subqueries) }
        case .object(let fields):
            for (key, value) in fields {
                try walk(value, logical: Self.logicalOperators.contains(key) ? logical + 1 : logical,
                         subqueries: Self.subqueryOperators.contains(key) ? subqueries + 1 : subqueries)
            }
        default:
            return
        }
    }

    private static func bypasses(_ identity: Identity) -> Bool { identity.isMaster || identity.isReadOnlyMaster }
}
