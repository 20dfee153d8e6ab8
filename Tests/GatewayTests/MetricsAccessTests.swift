import Foundation
import HTTPServer
import Messaging
import Metrics
import Runtime
import Testing
@testable import GatewayCore

/// Who gets `GET /metrics`: loopback callers, or anyone with the master key; nobody when metrics are off.
/// Nothing here reaches a broker (the queue depths are asked of a closed port and left out).
@Suite struct MetricsAccessTests {
    private static func responder(metrics: Bool = true) throws -> InstrumentedResponder {
        let configuration = try GatewayConfiguration.fromEnvironment(Environment([
            "PARSE_AMQP_URL": "amqp://guest:guest@127.0.0.1:1/", "PARSE_SERVER_MASTER_KEY": "theMasterKey",
        ]))
        let logger = Logger(service: "gateway-test", level: .error)
        let client = RPCClient(url: configuration.amqpURL, name: "gateway-test", eventExchange: "test.events", logger: logger)
        return InstrumentedResponder(
            inner: GatewayResponder(configuration: configuration, client: client, logger: logger),
            metrics: metrics ? GatewayMetrics() : nil, requestCounts: nil, masterKey: configuration.masterKey,
            queueDepths: DeadLetterQueues(url: configuration.amqpURL, timeoutSeconds: 1))
    }

    private static func metrics(from address: String, headers: HTTPHeaders = HTTPHeaders(), method: String = "GET",
                                enabled: Bool = true) async throws -> HTTPResponse {
        let responder = try responder(metrics: enabled)
        let request = HTTPRequest(method: method, path: "/metrics", headers: headers, remoteAddress: address)
        if let immediate = responder.immediateResponse(to: request) { return immediate }
        return await responder.respond(to: request)
    }

    @Test(arguments: ["127.0.0.1", "::1", "127.0.0.2"])
    func loopbackCallersGetTheMetrics(address: String) async throws {
        let response = try await Self.metrics(from: address)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == PrometheusText.contentType)
        #expect(String(decoding: response.body, as: UTF8.self).contains("# TYPE parse_http_requests_total counter"))
    }

    @Test func otherAddressesAreRefusedWithoutTheMasterKey() async throws {
        let response = try await Self.metrics(from: "203.0.113.9")
        #expect(response.status == 403)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"unauthorized"}"#)
        let wrongKey = try await Self.metrics(from: "203.0.113.9", headers: ["X-Parse-Master-Key": "guess"])
        #expect(wrongKey.status == 403)
    }

    @Test func theMasterKeyOpensThemFromAnywhere() async throws {
        let response = try await Self.metrics(from: "203.0.113.9", headers: ["X-Parse-Master-Key": "theMasterKey"])
        #expect(response.status == 200)
    }

    @Test func onlyGetAndHeadAreAnswered() async throws {
        #expect(try await Self.metrics(from: "127.0.0.1", method: "POST").status == 404)
    }

    @Test func switchedOffTheRouteIsUnknown() async throws {
        let response = try await Self.metrics(from: "127.0.0.1", enabled: false)
        #expect(response.status == 404)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("parse_http"))
    }

    @Test func immediateAnswersAreCountedUnderTheirTemplate() throws {
        let responder = try Self.responder()
        let counter = GatewayMetrics().requests.labels("health", "GET", "200")
        let before = counter.value
        _ = responder.immediateResponse(to: HTTPRequest(method: "GET", path: "/parse/health", remoteAddress: "127.0.0.1"))
        #expect(counter.value == before + 1)
    }
}
