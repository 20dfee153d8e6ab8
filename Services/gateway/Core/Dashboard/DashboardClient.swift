import HTTPServer

/// What the dashboard needs to know about where a request comes from: its own origin (for the CSRF origin
/// check and the content security policy) and whether it arrived over HTTPS or from this machine.
struct DashboardClient: Sendable {
    let origin: String
    let host: String
    let isSecure: Bool
    let isLocal: Bool

    init(_ request: HTTPRequest, fallbackHost: String) {
        host = request.headers["Host"] ?? fallbackHost
        // A TLS proxy in front says so; the gateway itself speaks plain HTTP.
        isSecure = request.headers["X-Forwarded-Proto"]?.lowercased() == "https"
        origin = (isSecure ? "https://" : "http://") + host
        isLocal = Self.isLoopback(request.remoteAddress)
    }

    /// The browser's word on who sent the request: a present `Origin` must be ours, and so must
    /// `Sec-Fetch-Site` when the browser sends one.
    func sentFromOurPages(_ request: HTTPRequest) -> Bool {
        if let sent = request.headers["Origin"], sent != origin { return false }
        if let site = request.headers["Sec-Fetch-Site"], site != "same-origin" { return false }
        return true
    }

    static func isLoopback(_ address: String) -> Bool {
        let bare = address.hasPrefix("::ffff:") ? String(address.dropFirst(7)) : address
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }
}
