import Contracts
import Foundation
import ParseWire
import Query
import Storage

/// `POST /batch`: sub-requests in order, each answered `{"success":...}` or `{"error":...}`; with
/// `"transaction": true` all of them commit together or none does.
struct BatchHandler {
    /// parse-server rejects a failed transactional batch with its list of results, a value that is not a Parse
    /// error, so its error handler answers as for any uncaught value: 500, with `message` rather than `error`.
    static let transactionFailed = RESTResponse(status: 500, body: #"{"code":1,"message":"Internal server error."}"#)

    let handler: PostsHandler

    /// A transactional batch holds one connection, and its transaction, for all its items (their triggers run inside
    /// it); the items of any other batch borrow connections as single requests do.
    func handle(_ request: RESTRequest, connections: StatementConnections, inTransaction: Bool) async throws -> RESTResponse {
        let body = try RequestBody.object(request.body)
        guard let items = body["requests"]?.arrayValue else { throw ParseError(.invalidJSON, "requests must be an array") }
        let transactional = body["transaction"]?.boolValue == true
        let mount = URLComponents(string: request.serverURL)?.path ?? "/parse"
        let subRequests = items.map {
            subRequest($0, mount: mount, serverURL: request.serverURL, transactional: transactional || inTransaction)
        }
        if subRequests.contains(where: { (try? $0.get())?.path == "batch" }) {
            throw ParseError(.invalidJSON, "nested batch requests are not allowed")
        }

        if transactional && !inTransaction {
            let handler = self.handler
            do {
                let results = try await connections.run { connection in
                    try await connection.transaction { connection in
                        var results: [JSONValue] = []
                        for sub in subRequests {
                            let response = try await handler.handle(try sub.get(), on: connection, inTransaction: true)
                            results.append(.object(["success": JSONValue.parse(response.body) ?? .null]))
                        }
                        return results
                    }
                }
                return PostsHandler.json(200, .array(results))
            } catch is ParseError {
                return Self.transactionFailed
            }
        }
        var results: [JSONValue] = []
        for sub in subRequests {
            do {
                let response = try await handler.handle(try sub.get(), connections: connections, inTransaction: inTransaction)
                results.append(.object(["success": JSONValue.parse(response.body) ?? .null]))
            } catch let error as ParseError {
                if inTransaction { throw error }
                results.append(.object(["error": .object(["code": .number(Double(error.code.rawValue)),
                                                          "error": .string(error.message)])]))
            }
        }
        return PostsHandler.json(200, .array(results))
    }

    /// One item as the call it stands for; its path must start with the mount, as parse-server demands.
    private func subRequest(_ item: JSONValue, mount: String, serverURL: String,
                            transactional: Bool) -> Result<RESTRequest, ParseError> {
        guard let method = item["method"]?.stringValue?.uppercased(), let path = item["path"]?.stringValue else {
            return .failure(ParseError(.invalidJSON, "Each batch request needs a method and a path."))
        }
        let prefix = mount.hasSuffix("/") ? mount : mount + "/"
        guard path.hasPrefix(prefix) else { return .failure(ParseError(.invalidJSON, "cannot route batch path \(path)")) }
        let route = String(path.dropFirst(prefix.count))
        // The gateway sends here only batches of posts' own routes; whichever of them posts does not serve
        // answers its usual error. The schema routes manage transactions of their own, so none runs in the batch's.
        guard !transactional || !(route.hasPrefix("schemas") || route.hasPrefix("purge")) else {
            return .failure(ParseError(.invalidJSON, "cannot route batch path \(path)"))
        }
        let body = item["body"].map(Self.bodyText)
        return .success(RESTRequest(method: method, path: route, query: [:], body: body, serverURL: serverURL))
    }

    /// PHP's SDK encodes an object without fields as `[]`; parse-server takes it for the empty object.
    static func bodyText(_ value: JSONValue) -> String {
        if case .array(let items) = value, items.isEmpty { return "{}" }
        return value.compactText
    }
}
