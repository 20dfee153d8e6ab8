import Contracts
import HTTPClient
import Messaging
import ParseWire
import Runtime

/// Sends one call's body to its target and reads the answer the same way for both kinds: a webhook gets it as an
/// HTTP POST with `X-Parse-Webhook-Key`, a worker queue as a `cloud.worker.call.v1` command. The call is bounded by
/// `timeout` and by the deadline of the command being handled, whichever comes first; a target that does not
/// answer by then is a 141, never a hang.
struct TargetCaller: Sendable {
    /// Webhook calls: connections kept alive per receiver, as parse-server's agents keep them; answers up to 16 MB.
    let webhooks: HTTPClient
    let calls: RPCClient
    let webhookKey: String?
    let logger: Logger

    func call(_ target: CloudTarget, _ call: CloudWorkerCall, label: String, timeout: Duration,
              requestId: String, identity: Identity) async throws -> WebhookAnswer.Success {
        let bound = Deadline.current.map { min(timeout, $0.remaining) } ?? timeout
        guard bound > .zero else { throw Self.timedOut(label, bound) }
        switch target {
        case .webhook(let url):
            return try await webhook(url, call.request, label: label, timeout: bound)
        case .worker(let queue):
            return try await worker(queue, call, label: label, timeout: bound, requestId: requestId, identity: identity)
        }
    }

    private func webhook(_ url: String, _ body: JSONValue, label: String, timeout: Duration) async throws -> WebhookAnswer.Success {
        let headers = ["Content-Type: application/json"] + (webhookKey.map { ["X-Parse-Webhook-Key: \($0)"] } ?? [])
        let response: HTTPClient.Response
        do {
            response = try await webhooks.send(.init("POST", url, headers: headers, body: JSONText.bytes(body), timeout: timeout))
        } catch HTTPClient.Failure.timedOut {
            throw Self.timedOut(label, timeout)
        } catch {
            logger.info("webhook call failed", ["url": url, "error": "\(error)"])
            throw ParseError(.scriptFailed, "The webhook for \(label) could not be called: \(error)")
        }
        return try WebhookAnswer.decode(response.body).get()
    }

    private func worker(_ queue: String, _ call: CloudWorkerCall, label: String, timeout: Duration, requestId: String,
                        identity: Identity) async throws -> WebhookAnswer.Success {
        let answer: JSONValue
        do {
            // Never batched: a worker that dies re-runs what it held, and a function may not be safe to run twice.
            answer = try await calls.send(CloudWorkerCall.type, call, queue: queue, requestId: requestId, identity: identity,
                                          timeout: timeout, safeToRunTwice: false, expecting: JSONValue.self)
        } catch let error as MessagingError {
            if case .timeout = error { throw Self.timedOut(label, timeout) }
            throw error.parseErrorForWrite
        }
        return try WebhookAnswer.interpret(answer).get()
    }

    static func timedOut(_ label: String, _ timeout: Duration) -> ParseError {
        ParseError(.scriptFailed, "Cloud Code timed out: \(label) did not answer within \(Int(timeout.totalMilliseconds.rounded())) ms.")
    }
}
