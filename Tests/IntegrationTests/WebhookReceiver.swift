import Foundation
import HTTPServer
import Synchronization

/// A webhook target on loopback for the Cloud Code tests: records every call (headers and JSON body) and answers
/// with what `answer` makes of it, or never, for the timeout test.
final class WebhookReceiver: Sendable {
    struct Call: Sendable {
        var headers: [String: String]
        var raw: [UInt8]
        var body: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(raw))) as? [String: Any] ?? [:] }
    }

    private final class Recorder: HTTPResponder, Sendable {
        let received = Mutex<[Call]>([])
        let answer: @Sendable ([String: Any]) -> [String: Any]?

        init(answer: @escaping @Sendable ([String: Any]) -> [String: Any]?) { self.answer = answer }

        func respond(to request: HTTPRequest) async -> HTTPResponse {
            var headers: [String: String] = [:]
            for (name, value) in request.headers { headers[name.lowercased()] = value }
            let call = Call(headers: headers, raw: request.body)
            received.withLock { $0.append(call) }
            guard let reply = answer(call.body) else {
                // Never answers within any test's patience.
                try? await Task.sleep(for: .seconds(60))
                return HTTPResponse(status: 500)
            }
            let data = (try? JSONSerialization.data(withJSONObject: reply)) ?? Data()
            return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: Array(data))
        }
    }

    private let recorder: Recorder
    private let server: HTTPServer

    /// `answer` gets the request body; nil means: do not answer.
    init(answer: @escaping @Sendable ([String: Any]) -> [String: Any]?) throws {
        recorder = Recorder(answer: answer)
        server = HTTPServer(configuration: HTTPServerConfiguration(port: 0), responder: recorder)
        try server.start()
    }

    var url: String { "http://127.0.0.1:\(server.port)/hook" }

    var calls: [Call] { recorder.received.withLock { $0 } }

    func stop() async { await server.shutdown(gracePeriod: .milliseconds(100)) }
}
