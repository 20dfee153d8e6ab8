import HTTPServer
import Runtime

/// The gateway's access log: one line per request that reaches a route (the answers made without one, such as
/// CORS preflights and `/health`, write none), with parse-server's `method` and `url` beside the status, the
/// duration and the request id. Written before the answer leaves, so a client's next request finds it in
/// `/scriptlog`, where it is kept at verbose as parse-server keeps its request lines.
enum AccessLine {
    static func write(_ request: HTTPRequest, status: Int, since started: ContinuousClock.Instant, trace: CommandTrace?,
                      to log: Logger) {
        let target = url(request)
        var fields = [("method", request.method), ("url", target), ("status", String(status)),
                      ("duration_ms", started.millisecondsElapsedText)]
        if let trace { fields.append(("msg.type", trace.summary)) }
        log.access("\(request.method) \(target) \(status)", fields)
    }

    /// The path and query, with the value of a `password` parameter masked, as parse-server masks it.
    static func url(_ request: HTTPRequest) -> String {
        guard !request.query.isEmpty else { return request.path }
        let query = request.query.map { item in
            "\(item.name)=\(item.name == "password" ? "********" : item.value)"
        }
        return request.path + "?" + query.joined(separator: "&")
    }
}
