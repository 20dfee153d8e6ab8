import GraphQL
import ParseWire

/// A GraphQL request as it arrives over HTTP, the way Apollo Server (which parse-server serves GraphQL with) takes
/// it: a JSON body (`query`, `operationName`, `variables`), the GraphQL multipart request (`operations`, `map` and
/// the files, for uploads), or, for queries only, the same fields in a GET's query string.
public struct GraphQLHTTPRequest: Sendable {
    public var request: GraphQLRequest
    public var uploads: [GraphQLUpload]

    /// Why a request cannot be run: the status and the message Apollo answers with.
    public struct Refusal: Error, Sendable, Equatable {
        public var status: Int
        public var message: String
        public var code: String

        public var body: String {
            GraphQLData.object([GraphQLObjectMember("errors", .list([.object([
                GraphQLObjectMember("message", .string(message)),
                GraphQLObjectMember("extensions", .object([GraphQLObjectMember("code", .string(code))])),
            ])]))]).jsonText
        }
    }

    private static func badRequest(_ message: String) -> Refusal { Refusal(status: 400, message: message, code: "BAD_REQUEST") }

    public static func parse(method: String, contentType: String?, body: [UInt8],
                             query: [String: String]) throws(Refusal) -> GraphQLHTTPRequest {
        switch method {
        case "GET":
            var fields: [String: JSONValue] = [:]
            for (name, value) in query where ["query", "operationName"].contains(name) { fields[name] = .string(value) }
            if let variables = query["variables"] {
                guard let parsed = JSONValue.parse(variables) else { throw badRequest("`variables` in a GET request must be JSON.") }
                fields["variables"] = parsed
            }
            let request = try operation(.object(fields))
            if let document = try? GraphQLParser.parse(request.query),
               (try? GraphQLExecutor.operation(in: document, named: request.operationName))?.type == .mutation {
                throw Refusal(status: 405, message: "Mutations can only be executed via POST", code: "BAD_REQUEST")
            }
            return GraphQLHTTPRequest(request: request, uploads: [])
        case "POST":
            let type = contentType?.lowercased() ?? ""
            if type.hasPrefix("multipart/form-data") {
                return try multipart(body, contentType: contentType ?? "")
            }
            guard let json = JSONValue.parse(body) else { throw badRequest("POST body is not valid JSON.") }
            return GraphQLHTTPRequest(request: try operation(json), uploads: [])
        default:
            throw Refusal(status: 405, message: "Apollo Server supports only GET/POST requests.", code: "BAD_REQUEST")
        }
    }

    /// `{"query", "operationName", "variables"}`: a JSON body's, or graphql-transport-ws's `subscribe` payload.
    public static func operation(_ json: JSONValue) throws(Refusal) -> GraphQLRequest {
        guard case .object(let fields) = json else { throw badRequest("POST body must be a JSON object.") }
        guard let query = fields["query"]?.stringValue, !query.isEmpty else {
            throw badRequest("GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.")
        }
        var variables: [String: GraphQLData] = [:]
        switch fields["variables"] {
        case .object(let given)?: variables = given.mapValues(GraphQLData.init(json:))
        case nil, .null?: break
        default: throw badRequest("`variables` in a POST body should be provided as an object.")
        }
        let operationName: String?
        switch fields["operationName"] {
        case .string(let name)?: operationName = name
        case nil, .null?: operationName = nil
        default: throw badRequest("`operationName` in a POST body must be a string if provided.")
        }
        return GraphQLRequest(query: query, operationName: operationName, variables: variables)
    }

    /// The GraphQL multipart request: `operations` (the JSON request with nulls where files go), `map` (which file goes
    /// to which variable paths) and the files, each part named by its key in `map`.
    private static func multipart(_ body: [UInt8], contentType: String) throws(Refusal) -> GraphQLHTTPRequest {
        guard let parts = MultipartFormData.parse(body, contentType: contentType) else {
            throw badRequest("Invalid multipart body.")
        }
        guard let operationsPart = parts.first(where: { $0.name == "operations" }),
              var operations = JSONValue.parse(operationsPart.bytes) else {
            throw badRequest("Misordered multipart fields; expected 'operations' followed by 'map'.")
        }
        guard let mapPart = parts.first(where: { $0.name == "map" }), case .object(let map)? = JSONValue.parse(mapPart.bytes) else {
            throw badRequest("Invalid JSON in the 'map' multipart field.")
        }
        var uploads: [GraphQLUpload] = []
        for (key, paths) in map.sorted(by: { $0.key < $1.key }) {
            guard let part = parts.first(where: { $0.name == key && $0.filename != nil }) else {
                throw badRequest("File missing in the request.")
            }
            let index = uploads.count
            uploads.append(GraphQLUpload(filename: part.filename ?? key, contentType: part.contentType, bytes: part.bytes))
            for path in paths.arrayValue ?? [] {
                guard let dotted = path.stringValue else { continue }
                operations = placing(GraphQLUpload.placeholder(index), at: dotted.split(separator: ".").map(String.init)[...], in: operations)
            }
        }
        return GraphQLHTTPRequest(request: try operation(operations), uploads: uploads)
    }

    /// `value` at the path of object keys and list indexes (`variables.files.0`) inside `json`.
    private static func placing(_ value: JSONValue, at path: ArraySlice<String>, in json: JSONValue) -> JSONValue {
        guard let key = path.first else { return value }
        switch json {
        case .object(var members):
            members[key] = placing(value, at: path.dropFirst(), in: members[key] ?? .null)
            return .object(members)
        case .array(var items):
            guard let index = Int(key), items.indices.contains(index) else { return json }
            items[index] = placing(value, at: path.dropFirst(), in: items[index])
            return .array(items)
        default:
            return json
        }
    }
}
