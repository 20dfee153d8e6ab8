import Contracts
import Foundation
import HTTPServer
import Messaging
import ParseWire
import Runtime

/// Runs a batch split by `BatchPlan`: each sub-request in order, as the caller, answered
/// `{"success":<body>}` or `{"error":{"code","error"}}` in parse-server's array; statuses and headers of the
/// sub-requests are dropped, as parse-server drops them.
struct BatchDispatcher: Sendable {
    /// parse-server's answer to a failed transaction (see posts' batch handler).
    static let transactionFailed = #"{"code":1,"message":"Internal server error."}"#

    let client: RPCClient
    let timeout: Duration
    let logger: Logger

    /// `idempotent`: the client named the batch with its request id, so each write in it is applied once per
    /// `<request id>.<index>`.
    func run(_ steps: [BatchPlan.Step], transactional: Bool, requestId: String, identity: Identity,
             serverURL: String, idempotent: Bool = false) async -> HTTPResponse {
        var results: [JSONValue] = []
        var failed = false
        for (index, step) in steps.enumerated() {
            // Distinct per sub-request, and the same when the client retries the batch with its request id: a
            // vote's ballot is keyed by it.
            let subRequestId = "\(requestId).\(index)"
            var step = step
            if idempotent, case .call(let service, var request) = step, request.method != "GET" {
                request.idempotent = true
                step = .call(service, request)
            }
            let result = await self.result(of: step, requestId: subRequestId, identity: identity, serverURL: serverURL)
            if result["error"] != nil { failed = true }
            results.append(result)
        }
        if transactional && failed { return ParseResponses.json(500, Self.transactionFailed) }
        return ParseResponses.json(200, JSONValue.array(results).compactText)
    }

    private func result(of step: BatchPlan.Step, requestId: String, identity: Identity, serverURL: String) async -> JSONValue {
        do {
            return try await answer(to: step, requestId: requestId, identity: identity, serverURL: serverURL).batchItem
        } catch {
            let isRead = if case .call(_, let request) = step { request.method == "GET" } else { false }
            return Self.error(CallFailure.parseError(error, write: !isRead, call: "batch sub-request", logger: logger))
        }
    }

    /// The owner's answer to one step, as the caller.
    func answer(to step: BatchPlan.Step, requestId: String, identity: Identity, serverURL: String) async throws -> RESTResponse {
        switch step {
        case .unroutable(let path):
            throw ParseError(.invalidJSON, "cannot route batch path \(path)")
        case .vote(let plan):
            return try await VoteForwarder(client: client, timeout: timeout, logger: logger)
                .answer(plan, requestId: requestId, identity: identity, serverURL: serverURL)
        case .call(let service, let request):
            return try await client.send(RESTRequest.type, request, to: service, requestId: requestId, identity: identity,
                                         timeout: timeout, safeToRunTwice: request.method == "GET")
        }
    }

    private static func error(_ error: ParseError) -> JSONValue { RESTResponse.batchItem(error) }
}
