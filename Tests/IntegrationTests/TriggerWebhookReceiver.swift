import Foundation
import HTTPServer
import ParseWire
import Synchronization

/// A Cloud Code webhook on loopback: `cloud` POSTs each trigger call to `url(path)`, the receiver records it and
/// answers what the test's handler for that path says (parse-server's `{"success": ...}` or `{"error": ...}`).
final class TriggerWebhookReceiver: Sendable {
    typealias Handler = @Sendable (JSONValue) -> JSONValue

    struct Call: Sendable {
        var path: String
        var body: JSONValue
        var webhookKey: String?
        /// Answered as a broken endpoint would (`setFailing`).
        var failed = false
    }

    private final class Recorder: HTTPResponder, Sendable {
        let calls = Mutex<[Call]>([])
        let handlers = Mutex<[String: Handler]>([:])
        let failing = Mutex<Set<String>>([])

        func respond(to request: HTTPRequest) async -> HTTPResponse {
            let body = JSONValue.parse(request.body) ?? .null
            let failed = failing.withLock { $0.contains(request.path) }
            calls.withLock {
                $0.append(Call(path: request.path, body: body, webhookKey: request.headers["X-Parse-Webhook-Key"], failed: failed))
            }
            // What a broken endpoint answers: not JSON, which Cloud Code takes for a failed call.
            if failed { return HTTPResponse(status: 502, body: Array("Bad Gateway".utf8)) }
            let handler = handlers.withLock { $0[request.path] }
            let answer = handler?(body) ?? .object(["success": .object([:])])
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: JSONText.bytes(answer))
        }
    }

    private let recorder = Recorder()
    private let server: HTTPServer

    init() throws {
        server = HTTPServer(configuration: HTTPServerConfiguration(port: 0), responder: recorder)
        try server.start()
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(server.port)\(path)" }

    func handle(_ path: String, _ handler: @escaping Handler) {
        recorder.handlers.withLock { $0[path] = handler }
    }

    /// While true, calls to `path` get an answer that is not JSON.
    func setFailing(_ path: String, _ failing: Bool) {
        recorder.failing.withLock { if failing { $0.insert(path) } else { $0.remove(path) } }
    }

    func calls(_ path: String) -> [Call] { recorder.calls.withLock { $0 }.filter { $0.path == path } }

    func stop() async { await server.shutdown(gracePeriod: .seconds(1)) }

    /// Polls until `condition` holds for the calls to `path` or `timeout` passes; returns them.
    func waitForCalls(_ path: String, timeout: Duration, until condition: ([Call]) -> Bool) async throws -> [Call] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let calls = calls(path)
            if condition(calls) || ContinuousClock.now > deadline { return calls }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
