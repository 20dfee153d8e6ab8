import Foundation
import HTTPServer
import Synchronization

/// Runs blocking socket code on its own thread. Tests must not block the cooperative pool: the server's
/// responder tasks run there, and a blocked pool would stall the very requests the test waits for.
func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Starts a server on a free loopback port, runs `body`, and always shuts the server down.
func withServer<T>(configure: (inout HTTPServerConfiguration) -> Void = { _ in },
                   responder: TestResponder = TestResponder(),
                   _ body: (HTTPServer, TestResponder) async throws -> T) async throws -> T {
    var configuration = HTTPServerConfiguration(port: 0)
    configure(&configuration)
    return try await runServer(configuration, responder: responder, body)
}

/// Starts a server with `configuration` and `responder`, runs `body`, and always shuts the server down.
func runServer<R: HTTPResponder, T>(_ configuration: HTTPServerConfiguration, responder: R,
                                    _ body: (HTTPServer, R) async throws -> T) async throws -> T {
    let server = HTTPServer(configuration: configuration, responder: responder)
    try server.start()
    do {
        let result = try await body(server, responder)
        await server.shutdown(gracePeriod: .seconds(2))
        return result
    } catch {
        await server.shutdown(gracePeriod: .seconds(2))
        throw error
    }
}

/// Counts what the responder did, so tests can wait for work that no client sees (a client that left).
final class ResponderEvents: Sendable {
    private let counts = Mutex((started: 0, finished: 0))
    var started: Int { counts.withLock { $0.started } }
    var finished: Int { counts.withLock { $0.finished } }
    func didStart() { counts.withLock { $0.started += 1 } }
    func didFinish() { counts.withLock { $0.finished += 1 } }
}

/// What `/inspect` answers: the request as the responder saw it.
struct InspectedRequest: Codable, Equatable {
    var method: String
    var path: String
    var query: [[String]]
    var headers: [[String]]
    var bodyCount: Int
    var remoteAddress: String
}

/// Routes used by the tests:
/// - `/immediate`: answered on the server thread;
/// - `/echo`: answered by a task, body echoed, method in `X-Method`;
/// - `/inspect`: the decoded request as JSON;
/// - `/slow?ms=N`: a task that sleeps N ms (reported in `events`);
/// - `/headers`: a response with repeated and forbidden headers.
struct TestResponder: HTTPResponder {
    let events = ResponderEvents()

    func immediateResponse(to request: HTTPRequest) -> HTTPResponse? {
        guard request.path == "/immediate" else { return nil }
        return HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("immediate".utf8))
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch request.path {
        case "/echo":
            return HTTPResponse(status: 200, headers: ["X-Method": request.method], body: request.body)
        case "/inspect":
            let inspected = InspectedRequest(method: request.method, path: request.path,
                                             query: request.query.map { [$0.name, $0.value] },
                                             headers: request.headers.map { [$0.name, $0.value] },
                                             bodyCount: request.body.count, remoteAddress: request.remoteAddress)
            let json = (try? JSONEncoder().encode(inspected)) ?? Data()
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(json))
        case "/slow":
            events.didStart()
            let milliseconds = Int(request.queryValue("ms") ?? "") ?? 100
            try? await Task.sleep(for: .milliseconds(milliseconds))
            events.didFinish()
            return HTTPResponse(status: 200, body: Array("slow".utf8))
        case "/headers":
            var headers = HTTPHeaders()
            headers.add("Set-Cookie", "a=1")
            headers.add("Set-Cookie", "b=2")
            headers.add("Content-Length", "999")
            headers.add("X-Custom", "value")
            return HTTPResponse(status: 201, headers: headers, body: Array("abc".utf8))
        default:
            return HTTPResponse(status: 404, body: Array("not found".utf8))
        }
    }
}

/// A one-way signal between a test and its client threads.
final class Flag: Sendable {
    private let raised = Atomic(false)
    var isRaised: Bool { raised.load(ordering: .acquiring) }
    func raise() { raised.store(true, ordering: .releasing) }
}
