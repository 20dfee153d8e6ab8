import Contracts
import Foundation
import ParseWire
import Query
import ServiceKit
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

        let context = handler.context
        if transactional && !inTransaction {
            let handler = self.handler
            let run: @Sendable () async throws -> RESTResponse = {
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
            }
            do {
                // All or nothing: the batch's one transaction claims its request id.
                if let once = context.once { return try await once.once(context.requestId, run) }
                return try await run()
            } catch is ParseError {
                return Self.transactionFailed
            }
        }
        guard let once = context.once else {
            return try await itemByItem(subRequests, connections: connections, inTransaction: inTransaction)
        }
        // Each write once per `<request id>.<index>`, as in a batch the gateway splits: a retry of a batch cut short
        // by its deadline finishes it, answering the writes done before as the first attempt did, without running
        // them again. Their answers are stored a hundred at a time, and when the batch stops, whatever stops it.
        let keys = subRequests.indices.map { "\(context.requestId).\($0)" }
        let earlier = try await once.storedAnswers(zip(keys, subRequests).filter { (try? $1.get())?.method != "GET" }.map(\.0))
        let pending = PendingAnswers()
        do {
            let response = try await itemByItem(subRequests, connections: connections, inTransaction: inTransaction) {
                index, request, run in
                guard request.method != "GET" else { return try await run() }
                if let answer = earlier[keys[index]] { return try answer.get() }
                let response = try await once.once(keys[index], answers: pending, run)
                if pending.count >= 100 { await once.store(pending) }
                return response
            }
            await once.store(pending)
            return response
        } catch {
            await once.store(pending)
            throw error
        }
    }

    /// Runs the items in order, each through `wrap` (which calls `run` for it, or answers it another way).
    private func itemByItem(
        _ subRequests: [Result<RESTRequest, ParseError>], connections: StatementConnections, inTransaction: Bool,
        wrap: (Int, RESTRequest, @Sendable () async throws -> RESTResponse) async throws -> RESTResponse = { _, _, run in try await run() }
    ) async throws -> RESTResponse {
        let handler = self.handler
        var results: [JSONValue] = []
        for (index, sub) in subRequests.enumerated() {
            do {
                let request = try sub.get()
                let response = try await wrap(index, request) {
                    try await handler.handle(request, connections: connections, inTransaction: inTransaction)
                }
                results.append(response.batchItem)
            } catch let error as ParseError {
                if inTransaction { throw error }
                results.append(RESTResponse.batchItem(error))
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
