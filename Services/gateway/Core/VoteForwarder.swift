import Contracts
import Foundation
import HTTPServer
import Messaging
import ParseWire
import Runtime

/// Sends a vote to `votes` and, for a body that also changed other fields, those fields to `posts` after it,
/// answering as one update: the vote's total, the other fields' echo and the later `updatedAt`.
struct VoteForwarder: Sendable {
    let client: RPCClient
    let timeout: Duration
    let logger: Logger

    func send(_ plan: VoteRoute.Plan, requestId: String, identity: Identity, serverURL: String) async -> HTTPResponse {
        do {
            let answer = try await self.answer(plan, requestId: requestId, identity: identity, serverURL: serverURL)
            return ParseResponses.json(answer.status, answer.body, extra: answer.headers.sorted { $0.key < $1.key })
        } catch {
            // A ballot recorded before the timeout is completed by the votes service's recovery.
            return ParseResponses.error(CallFailure.parseError(error, write: true, call: "vote call", logger: logger))
        }
    }

    /// The answer the client gets for the vote; throws what the calls throw.
    func answer(_ plan: VoteRoute.Plan, requestId: String, identity: Identity, serverURL: String) async throws -> RESTResponse {
        let voted: RESTResponse = try await client.send(CastVote.type, plan.vote, to: .votes, requestId: requestId,
                                                        identity: identity, timeout: timeout)
        guard let rest = plan.rest, voted.status == 200 else { return voted }
        let path = "classes/\(plan.vote.className)/\(plan.vote.objectId)"
        let updated: RESTResponse = try await client.send(
            RESTRequest.type, RESTRequest(method: "PUT", path: path, query: [:], body: rest, serverURL: serverURL),
            to: .posts, requestId: requestId + ".fields", identity: identity, timeout: timeout)
        guard updated.status == 200 else { return updated }
        var merged = JSONValue.parse(voted.body)?.objectValue ?? [:]
        for (key, value) in JSONValue.parse(updated.body)?.objectValue ?? [:] { merged[key] = value }
        return RESTResponse(status: 200, body: JSONValue.object(merged).compactText)
    }
}
