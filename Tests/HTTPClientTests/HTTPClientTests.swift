import Foundation
import HTTPClient
import HTTPServer
import Testing

/// The one outbound HTTP client, against a local server: methods, headers and bodies as sent, statuses as answered,
/// and its limits (time, size, redirects, schemes).
@Suite struct HTTPClientTests {
    /// Answers by path: `/echo` returns the method, headers it was asked about and the body; `/status/N` answers N;
    /// `/slow` waits a second; `/big` sends 64 KB; `/redirect` points elsewhere.
    final class Receiver: HTTPResponder, Sendable {
        func respond(to request: HTTPRequest) async -> HTTPResponse {
            switch request.path {
            case "/echo":
                let echoed = "\(request.method) \(request.headers["X-Test"] ?? "-") \(String(decoding: request.body, as: UTF8.self))"
                return HTTPResponse(status: 200, body: Array(echoed.utf8))
            case let path where path.hasPrefix("/status/"):
                return HTTPResponse(status: Int(path.dropFirst(8)) ?? 500, body: Array("answered".utf8))
            case "/slow":
                try? await Task.sleep(for: .seconds(1))
                return HTTPResponse(status: 200)
            case "/big":
                return HTTPResponse(status: 200, body: [UInt8](repeating: 65, count: 64 << 10))
            case "/redirect":
                return HTTPResponse(status: 302, headers: HTTPHeaders([("Location", "/echo")]))
            default:
                return HTTPResponse(status: 404)
            }
        }
    }

    static let server: HTTPServer = {
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 8), responder: Receiver())
        try? server.start()
        return server
    }()

    static var base: String { "http://127.0.0.1:\(server.port)" }
    let client = HTTPClient(label: "test-http", maxResponseBytes: 32 << 10)

    @Test(arguments: ["GET", "POST", "PUT", "DELETE"])
    func aRequestArrivesAsSentAndItsAnswerComesBack(method: String) async throws {
        let body: [UInt8]? = method == "GET" ? nil : Array("payload".utf8)
        let response = try await client.send(.init(method, Self.base + "/echo", headers: ["X-Test: yes"], body: body))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "\(method) yes \(body == nil ? "" : "payload")")
    }

    @Test func anErrorStatusIsAnAnswerNotAFailure() async throws {
        let response = try await client.send(.init("GET", Self.base + "/status/503"))
        #expect(response.status == 503 && String(decoding: response.body, as: UTF8.self) == "answered")
    }

    @Test func aRedirectIsNotFollowed() async throws {
        #expect(try await client.send(.init("GET", Self.base + "/redirect")).status == 302)
    }

    @Test func theLimitsHold() async throws {
        await #expect(throws: HTTPClient.Failure.timedOut) {
            _ = try await client.send(.init("GET", Self.base + "/slow", timeout: .milliseconds(200)))
        }
        await #expect(throws: HTTPClient.Failure.tooLarge) { _ = try await client.send(.init("GET", Self.base + "/big")) }
        await #expect(throws: HTTPClient.Failure.notHTTP) { _ = try await client.send(.init("GET", "file:///etc/passwd")) }
        // Nothing listens on port 9 here.
        await #expect(throws: HTTPClient.Failure.self) { _ = try await client.send(.init("GET", "http://127.0.0.1:9/")) }
    }

    @Test func manyCallsAtOnceEachGetTheirOwnAnswer() async throws {
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let response = try await client.send(.init("POST", Self.base + "/echo", body: Array("n\(index)".utf8)))
                    return String(decoding: response.body, as: UTF8.self)
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(answers == Set((0..<40).map { "POST - n\($0)" }))
    }
}
