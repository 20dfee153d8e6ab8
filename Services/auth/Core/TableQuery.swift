import Contracts
import ParseWire
import Query
import Storage

/// One `GET /users`, `/roles` or `/sessions` query: the shared `where` translation over one of auth's tables,
/// plus the conditions the handler adds for who may see which rows.
struct TableQuery {
    static let defaultLimit = 100
    /// parse-server has no maximum by default; this one only keeps a single answer to a sane size.
    static let maximumLimit = 10_000

    let table: String
    /// The select list, over the row alias `t0`.
    let columns: String
    let mapping: any FieldMapping
    let options: QueryOptions

    /// The options of the request, from its query string and from a `_method: GET` body.
    static func options(_ request: AuthRequest) throws -> QueryOptions {
        let options = try QueryOptions(find: QueryOptions.merge(query: request.query, body: request.bodyText))
        try request.limits.check(where: options.whereClause, subqueryDepth: request.subqueryDepth, identity: request.identity)
        return options
    }

    /// The rows (none when `limit` is 0) and, when asked for, the count. `restrict` adds the visibility
    /// conditions, binding their values through the translator it is given.
    func run(on pool: PostgresPool,
             restrict: (WhereTranslator) throws -> [String] = { _ in [] }) async throws -> (rows: [PostgresRow], count: Int?) {
        let translator = WhereTranslator()
        var conditions = try restrict(translator)
        conditions.append(try await translator.translate(options.whereClause, mapping, alias: "t0"))
        // The count has no ORDER BY, so it takes only the values bound so far (an order on a custom field binds
        // its key).
        let conditionValues = translator.parameters.values
        let order = try translator.orderTerms(options.order, mapping, alias: "t0") + ["t0.created_at", "t0.id"]
        let from = "FROM \(table) AS t0 WHERE \(conditions.joined(separator: " AND "))"
        let limit = min(options.limit ?? Self.defaultLimit, Self.maximumLimit)
        do {
            var rows: [PostgresRow] = []
            if limit > 0 {
                let sql = "SELECT \(columns) \(from) ORDER BY \(order.joined(separator: ", ")) LIMIT \(limit) OFFSET \(options.skip)"
                rows = try await pool.query(sql, translator.parameters.values).rows
            }
            var count: Int?
            if options.count {
                count = try await pool.query("SELECT count(*) AS total \(from)", conditionValues).first?.int("total") ?? 0
            }
            return (rows, count)
        } catch let error as PostgresError {
            throw error.queryError ?? error
        }
    }

    /// The answer: `results` cut to `keys`/`excludeKeys`, and `count` when asked for.
    func answer(_ objects: [[String: JSONValue]], count: Int?) -> RESTResponse {
        var answer: [String: JSONValue] = ["results": .array(objects.map { .object(options.project($0)) })]
        if let count { answer["count"] = .number(Double(count)) }
        return AuthResponses.ok(answer)
    }
}
