/// The route of a request as a template (`classes/:className/:objectId`), for metric labels and the API request
/// counts: never the raw path or a class name, so the number of series stays bounded whatever clients send. Paths that fit no known route
/// fall into `unknown`, or `<route>/other` below a known first segment.
enum RouteTemplate {
    /// `route` is the path below the mount without its leading slash (`GatewayResponder.routePath`), nil for a
    /// path outside the mount.
    static func of(_ route: String?) -> String {
        guard let route else { return "outside_mount" }
        let parts = route.split(separator: "/", omittingEmptySubsequences: false)
        let first = String(parts.first ?? "")
        let depth = parts.count
        if route.isEmpty { return "/" }
        if let names = named[first] {
            if depth == 1 { return first }
            return depth - 2 < names.count ? names[depth - 2] : first + "/other"
        }
        if let literal = literals[first] {
            if depth == 1 { return first }
            if depth == 2, literal.contains(String(parts[1])) { return first + "/" + parts[1] }
            if depth == 2, let fallback = literalFallback[first] { return first + "/" + fallback }
            return first + "/other"
        }
        if singles.contains(first) { return depth == 1 ? first : first + "/other" }
        return "unknown"
    }

    /// Routes whose further segments are names or ids: the template for two segments, three, ...
    private static let named: [String: [String]] = [
        "classes": ["classes/:className", "classes/:className/:objectId"],
        "roles": ["roles/:objectId"],
        "installations": ["installations/:objectId"],
        "schemas": ["schemas/:className"],
        "aggregate": ["aggregate/:className"],
        "purge": ["purge/:className"],
        "files": ["files/:filename", "files/:appId/:filename"],
        "events": ["events/:eventName"],
        "functions": ["functions/:functionName"],
        "jobs": ["jobs/:jobName"],
        "push_audiences": ["push_audiences/:objectId"],
        "hooks": ["hooks/:kind", "hooks/:kind/:name"],
        "cloud_code": ["cloud_code/:kind", "cloud_code/:kind/:name"],
    ]

    /// Routes with a fixed second segment (`users/me`, `health/ready`) or else an id.
    private static let literals: [String: Set<String>] = [
        "users": ["me"],
        "sessions": ["me"],
        "health": ["ready"],
        "push": [],
        "analytics": ["requests"],
    ]
    private static let literalFallback: [String: String] = [
        "users": ":objectId",
        "sessions": ":objectId",
        "push": ":objectId",
    ]

    private static let singles: Set<String> = [
        "login", "logout", "batch", "config", "serverInfo", "requestPasswordReset", "verifyPassword",
        "upgradeToRevocableSession", "verificationEmailRequest", "loginAs", "graphql", "scriptlog", "apps",
    ]

    /// The method as a label: the ones HTTP defines, anything else `other`.
    static func method(_ method: String) -> String {
        knownMethods.contains(method) ? method : "other"
    }

    private static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH",
                                                    "CONNECT", "TRACE"]
}
