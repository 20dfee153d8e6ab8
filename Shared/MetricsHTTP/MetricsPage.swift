import HTTPServer
import Metrics

/// The answer to `GET /metrics`: the registry in Prometheus' text format.
public enum MetricsPage {
    public static func response(_ registry: MetricsRegistry = .shared) -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["Content-Type": PrometheusText.contentType, "Cache-Control": "no-store"],
                     body: Array(registry.exposition().utf8))
    }

    static let notFound = HTTPResponse.json(status: 404, #"{"error":"not found"}"#)
    static let methodNotAllowed = HTTPResponse(status: 405, headers: ["Allow": "GET, HEAD",
                                                                      "Content-Type": "application/json; charset=utf-8"],
                                               body: Array(#"{"error":"method not allowed"}"#.utf8))
}
