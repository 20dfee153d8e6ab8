import Contracts
import Dispatch
import HTTPServer
import Messaging
import Metrics
import MetricsHTTP

/// The gateway's outermost responder: serves `GET /metrics` (outside the Parse mount) to loopback callers or
/// with the master key, and counts every other request by route template, method and status: with its time in
/// the metrics, and per hour in the API request counts (`RequestCounter`, for the dashboard's Analytics), which
/// count below the mount only. With `PARSE_METRICS=0` the metrics count nothing and `/metrics` is an unknown route
/// like any other; the request counts go on.
/// A class for the reason given at `DashboardResponder`.
final class InstrumentedResponder: HTTPStreamingResponder {
    static let path = "/metrics"

    let inner: GatewayResponder
    let metrics: GatewayMetrics?
    let requestCounts: RequestCounter?
    let masterKey: String?
    let queueDepths: DeadLetterQueues

    init(inner: GatewayResponder, metrics: GatewayMetrics?, requestCounts: RequestCounter?, masterKey: String?,
         queueDepths: DeadLetterQueues) {
        self.inner = inner
        self.metrics = metrics
        self.requestCounts = requestCounts
        self.masterKey = masterKey
        self.queueDepths = queueDepths
    }

    func immediateResponse(to request: HTTPRequest) -> HTTPResponse? {
        if metrics != nil, request.path == Self.path { return nil }
        // Decided once here for the layers inside and for the counts.
        let route = inner.route(of: request)
        guard let response = inner.immediateResponse(to: request, route: route) else { return nil }
        record(request, route: route, response, seconds: nil)
        return response
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        if metrics != nil, request.path == Self.path { return await metricsPage(request) }
        let route = inner.route(of: request)
        return await measured(request, route: route) { await inner.respond(to: request, route: route) }
    }

    func streamsBody(of head: HTTPRequest) -> Bool { inner.streamsBody(of: head) }

    func respond(to head: HTTPRequest, body: HTTPBodyStream) async -> HTTPResponse {
        let route = inner.route(of: head)
        return await measured(head, route: route) { await inner.respond(to: head, body: body, route: route) }
    }

    private func measured(_ request: HTTPRequest, route: GatewayRoute, _ answer: () async -> HTTPResponse) async -> HTTPResponse {
        guard let metrics else {
            let response = await answer()
            record(request, route: route, response, seconds: nil)
            return response
        }
        let started = ContinuousClock.now
        metrics.inFlight.increment()
        let response = await answer()
        metrics.inFlight.decrement()
        let elapsed = (ContinuousClock.now - started).components
        record(request, route: route, response, seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
        return response
    }

    private func record(_ request: HTTPRequest, route: GatewayRoute, _ response: HTTPResponse, seconds: Double?) {
        metrics?.count(template: route.template, method: request.method, status: response.status, seconds: seconds)
        // The request counts are the stack's own app's analytics: another app's requests are not its.
        if let requestCounts, route.path != nil, route.destination != .appsAdmin, request.method != "OPTIONS",
           request.headers["X-Parse-Application-Id"].map({ $0 == inner.configuration.applicationId }) ?? true {
            requestCounts.record(method: request.method, template: route.template, status: response.status)
        }
    }

    private func metricsPage(_ request: HTTPRequest) async -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return ParseResponses.unknownRoute(request.method, request.path)
        }
        guard Self.isLoopback(request.remoteAddress) || sentMasterKey(request) else { return ParseResponses.unauthorized }
        await refreshQueueDepths()
        return MetricsPage.response()
    }

    private func sentMasterKey(_ request: HTTPRequest) -> Bool {
        guard let masterKey, let sent = request.headers["X-Parse-Master-Key"] else { return false }
        return ConstantTime.equals(masterKey, sent)
    }

    static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address.hasPrefix("127.") || address.hasPrefix("::ffff:127.")
    }

    /// Asked over a short connection of its own, whose calls block: on a dispatch thread, not the cooperative
    /// pool. A broker that cannot be asked leaves the last figures (and `parse_amqp_connected` says why).
    private func refreshQueueDepths() async {
        let queues = ServiceName.allCases.map(\.commandQueue)
        let depths = queueDepths
        let counts = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: try? depths.depths(queues)) }
        }
        for (queue, count) in counts ?? [:] { metrics?.queueMessages.labels(queue).set(Double(count)) }
    }
}
