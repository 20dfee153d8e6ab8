import Foundation
import HTTPServer
import Synchronization

/// A local HTTP endpoint standing in for APNs and FCM: the push adapter POSTs each device's notification here, and
/// the tests read what arrived.
final class PushReceiver: Sendable {
    struct Notification: Sendable {
        var raw: [UInt8]
        var receivedAt: Date
        var body: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(raw))) as? [String: Any] ?? [:] }
        var deviceToken: String? { body["deviceToken"] as? String }
    }

    private final class Recorder: HTTPResponder, Sendable {
        let received = Mutex<[Notification]>([])

        func respond(to request: HTTPRequest) async -> HTTPResponse {
            received.withLock { $0.append(Notification(raw: request.body, receivedAt: Date())) }
            return HTTPResponse(status: 200)
        }
    }

    private let recorder = Recorder()
    private let server: HTTPServer

    init() throws {
        server = HTTPServer(configuration: HTTPServerConfiguration(port: 0), responder: recorder)
        try server.start()
    }

    var url: String { "http://127.0.0.1:\(server.port)/push" }

    /// What arrived for one push.
    func notifications(of pushStatusId: String) -> [Notification] {
        recorder.received.withLock { $0 }.filter { $0.body["pushStatusId"] as? String == pushStatusId }
    }

    func stop() async { await server.shutdown(gracePeriod: .seconds(1)) }
}
