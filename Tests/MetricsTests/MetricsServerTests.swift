import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import HTTPServer
import Metrics
import Runtime
@testable import MetricsHTTP

@Suite struct MetricsServerTests {
    @Test func servesTheRegistryOnItsPort() async throws {
        let registry = MetricsRegistry()
        registry.counter("demo_served", help: "Served.").labels().increment(by: 5)
        let server = MetricsServer(host: "127.0.0.1", port: 0, registry: registry, logger: Logger(service: "test", level: .error))
        try server.start()
        let session = URLSession(configuration: { let c = URLSessionConfiguration.ephemeral; c.urlCache = nil; return c }())
        let (data, response) = try await session.data(from: URL(string: "http://127.0.0.1:\(server.port)/metrics")!)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == PrometheusText.contentType)
        #expect(String(decoding: data, as: UTF8.self).contains("demo_served_total 5\n"))
        let (_, other) = try await session.data(from: URL(string: "http://127.0.0.1:\(server.port)/other")!)
        #expect((other as? HTTPURLResponse)?.statusCode == 404)
        await server.stop()
    }

    @Test func settingsReadTheSwitchAndPort() throws {
        #expect(try MetricsSettings.fromEnvironment(Environment([:])) == MetricsSettings())
        let set = try MetricsSettings.fromEnvironment(Environment(["PARSE_METRICS": "0", "PARSE_METRICS_PORT": "9100",
                                                                   "PARSE_METRICS_HOST": "0.0.0.0"]))
        #expect(set == MetricsSettings(enabled: false, port: 9100, host: "0.0.0.0"))
        #expect(throws: ConfigurationError.self) { try MetricsSettings.fromEnvironment(Environment(["PARSE_METRICS": "maybe"])) }
        #expect(throws: ConfigurationError.self) { try MetricsSettings.fromEnvironment(Environment(["PARSE_METRICS_PORT": "70000"])) }
    }
}
