import Contracts
import Messaging
import ParseWire
import Query
import Runtime

/// Subqueries (`$inQuery`, `$notInQuery`, `$select`, `$dontSelect`) whose inner class another service owns, answered
/// in parts: the owner runs the inner query as the caller (a `rest.v1` find with the caller's identity, so its ACLs,
/// class-level permissions and protected fields apply as to a query of the caller's own), and the outer query
/// matches the values it answered, as parse-server's `RestQuery` replaces a subquery by an `$in` of its results.
///
/// parse-server runs a subquery without a limit; here one that matches more than `maximumRows` objects is refused
/// (102) rather than held in memory, and subqueries nest across services `maximumDepth` deep at most (parse-server 9
/// bounds nesting with `requestComplexity.subqueryDepth`).
public struct ForeignSubqueries: Sendable {
    public static let maximumRows = 10_000
    public static let maximumDepth = 5

    let calls: RequestCalls
    /// The nesting of the query being compiled: 0 for a client's own query. The owner of an inner query applies no
    /// `maxLimit` to it (parse-server applies none to subqueries): its list must be whole.
    public let depth: Int

    public init(calls: RPCClient, identity: Identity, requestId: String, depth: Int, timeout: Duration) {
        self.calls = RequestCalls(calls: calls, identity: identity, requestId: requestId, timeout: timeout)
        self.depth = depth
    }

    /// The condition of the positive form of `op` on `column` (the translator negates it for `$notInQuery` and
    /// `$dontSelect`).
    public func condition(_ op: String, _ operand: JSONValue, _ column: QueryColumn,
                          translator: WhereTranslator) async throws -> String {
        let improper = ParseError(.invalidQuery, "improper usage of \(op)")
        switch op {
        case "$inQuery", "$notInQuery":
            guard let fields = operand.objectValue, let className = fields["className"]?.stringValue else { throw improper }
            let clause = try Self.whereClause(fields["where"], improper)
            guard [.pointer, .array].contains(column.type.kind) || column.isSchemaless else {
                guard column.exists else { return "FALSE" }
                throw ParseError(.invalidQuery, "\(op) applies to Pointer fields only.")
            }
            let ids = try await values(of: "objectId", className: className, where: clause)
            let pointers = ids.compactMap(\.stringValue).map {
                JSONValue.object(["__type": .string("Pointer"), "className": .string(className), "objectId": .string($0)])
            }
            return try translator.membership(.array(pointers), column, name: "$in")
        default:
            guard let fields = operand.objectValue, fields.count == 2, let key = fields["key"]?.stringValue,
                  let query = fields["query"]?.objectValue, let className = query["className"]?.stringValue else {
                throw improper
            }
            let clause = try Self.whereClause(query["where"], improper)
            return try translator.membership(.array(try await values(of: key, className: className, where: clause)),
                                             column, name: "$in")
        }
    }

    /// The members of a relation posts stores (`relation.members.v1`), for a `$relatedTo` answered elsewhere.
    public func relationMembers(className: String, objectId: String, key: String) async throws -> [String] {
        let answer: RelationMemberIds = try await calls.ask(
            RelationMembers.type, RelationMembers(className: className, objectId: objectId, key: key), of: .posts)
        return answer.objectIds
    }

    private static func whereClause(_ value: JSONValue?, _ improper: ParseError) throws -> [String: JSONValue] {
        switch value {
        case nil, .null?: return [:]
        case .object(let clause)?: return clause
        default: throw improper
        }
    }

    /// The values at `key` (a dotted path) of the rows of `className` matching `clause` that the caller may read.
    func values(of key: String, className: String, where clause: [String: JSONValue]) async throws -> [JSONValue] {
        guard depth < Self.maximumDepth else {
            throw ParseError(.invalidQuery, "Subqueries may be nested \(Self.maximumDepth) deep at most.")
        }
        let path = key.split(separator: ".").map(String.init)
        let request = RESTRequest(
            method: "GET", path: "classes/\(className)",
            // One row past the bound tells that there are more, without a count the caller's `count` permission
            // could refuse.
            query: ["where": JSONValue.object(clause).compactText, "keys": path.first ?? key,
                    "limit": String(Self.maximumRows + 1)],
            body: nil, serverURL: "", subqueryDepth: depth + 1)
        let response: RESTResponse = try await calls.ask(RESTRequest.type, request, of: ServiceName.owner(ofClass: className))
        let body = JSONValue.parse(response.body)
        guard response.status == 200, let results = body?["results"]?.arrayValue else {
            let code = body?["code"]?.numberValue.flatMap { Int(exactly: $0) }.map(ParseError.Code.init(rawValue:))
            throw ParseError(code ?? .invalidQuery, body?["error"]?.stringValue ?? "The subquery on \(className) failed.")
        }
        if results.count > Self.maximumRows {
            throw ParseError(.invalidQuery, "The subquery on \(className) matches more than \(Self.maximumRows) objects; "
                             + "narrow its where.")
        }
        return results.compactMap { row in
            path.reduce(Optional(row)) { value, part in value?[part] }.flatMap { $0.isNull ? nil : $0 }
        }
    }
}

/// A service's field mapping whose subqueries all go to their inner class's owner (auth's tables: no class they
/// could name is joined in SQL there).
public protocol ForeignSubqueryMapping: FieldMapping {
    var foreign: ForeignSubqueries? { get }
}

extension ForeignSubqueryMapping {
    public func subquery(_ op: String, _ operand: JSONValue, _ column: QueryColumn,
                         translator: WhereTranslator) async throws -> String {
        guard let foreign else {
            throw ParseError(.invalidQuery, "The query operator \(op) is not supported on this class by this server.")
        }
        return try await foreign.condition(op, operand, column, translator: translator)
    }
}
