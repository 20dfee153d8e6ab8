import Testing
@testable import GatewayCore

@Suite struct ReadinessLimitsTests {
    @Test func noLimitsByDefault() {
        #expect(ReadinessLimits().problem(queueDepth: 1_000_000, outboxAgeSeconds: 86_400) == nil)
    }

    @Test func queueDepthAboveTheLimitIsAProblem() {
        let limits = ReadinessLimits(maxQueueDepth: 100)
        #expect(limits.problem(queueDepth: 100, outboxAgeSeconds: nil) == nil)
        let problem = limits.problem(queueDepth: 101, outboxAgeSeconds: nil)
        #expect(problem?.contains("PARSE_READY_MAX_QUEUE_DEPTH (100)") == true)
    }

    @Test func outboxAgeAboveTheLimitIsAProblem() {
        let limits = ReadinessLimits(maxOutboxAge: .milliseconds(1_500))
        #expect(limits.problem(queueDepth: nil, outboxAgeSeconds: 1.2) == nil)
        #expect(limits.problem(queueDepth: nil, outboxAgeSeconds: 2)?.contains("2000 ms old") == true)
    }

    @Test func settingsAreRead() throws {
        let configuration = try GatewayConfiguration.fromEnvironment(.init(["PARSE_READY_MAX_QUEUE_DEPTH": "5",
                                                                            "PARSE_READY_MAX_OUTBOX_AGE_MS": "250",
                                                                            "PARSE_METRICS": "0"]))
        #expect(configuration.readinessLimits == ReadinessLimits(maxQueueDepth: 5, maxOutboxAge: .milliseconds(250)))
        #expect(!configuration.metricsEnabled)
        #expect(try GatewayConfiguration.fromEnvironment(.init([:])).metricsEnabled)
    }
}
