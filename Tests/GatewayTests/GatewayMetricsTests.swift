import Metrics
import Testing
@testable import GatewayCore

/// The per-route series the gateway resolves once are the family's own series: what is counted through them is
/// what `/metrics` shows under the route's, method's and status's labels, also past the statuses kept in slots.
@Suite struct GatewayMetricsTests {
    @Test func countsLandInTheSeriesOfTheirRouteMethodAndStatus() {
        let metrics = GatewayMetrics()
        let template = RouteTemplate.index(of: "purge/Cat")
        let statuses = [299, 298, 297, 296, 295, 294, 293, 292, 299]
        for status in statuses { metrics.count(template: template, method: "TRACE", status: status, seconds: 0.002) }
        metrics.count(template: template, method: "BREW", status: 299, seconds: nil)
        #expect(metrics.requests.labels("purge/:className", "TRACE", "299").value == 2)
        #expect(metrics.requests.labels("purge/:className", "TRACE", "292").value == 1)
        #expect(metrics.requests.labels("purge/:className", "other", "299").value == 1)
        #expect(metrics.duration.labels("purge/:className", "TRACE").count == UInt64(statuses.count))
        #expect(metrics.duration.labels("purge/:className", "other").count == 0)
    }
}
