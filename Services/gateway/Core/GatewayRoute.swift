import Contracts

/// Where a request goes, decided once per request by the outermost responder (`InstrumentedResponder`) from its
/// method and path, and handed to every layer inside: the gateway's one route table. The owner of a service route
/// is `ServiceRoute`'s; what a service route does with its body (a batch split, a vote, a Cloud Code call) depends on
/// the body and the `_method` in it, and is decided in `GatewayResponder.dispatch` from this route.
struct GatewayRoute: Sendable, Equatable {
    enum Destination: Sendable, Equatable {
        /// `GET|POST health`: answered on the server's thread.
        case health
        /// `GET health/ready`: the readiness report.
        case readiness
        /// `files[/*]`: raw bytes, streamed to the files service (`FileRequestHandler`).
        case files
        /// `apps[/*]`: parse-server's public pages, forwarded to auth without keys (`PublicPagesForwarder`).
        case publicPages
        /// `GatewayConfiguration.graphQLPath`: the GraphQL API (`GraphQLRequestHandler`).
        case graphQL
        /// `AppsAdmin.path[/*]`, outside the mount: the app registry's API (`AppsAdmin`).
        case appsAdmin
        /// A Parse REST route of `ServiceName`.
        case service(ServiceName)
        /// No route: outside the mount, or nothing owns it (404, code 108).
        case unknown
    }

    /// The path below the mount without its leading slash; nil outside the mount.
    let path: String?
    let destination: Destination
    /// The template its metrics and request counts are kept under (`RouteTemplate`).
    let template: Int

    init(method: String, path: String?) {
        self.path = path
        destination = Self.destination(method: method, path: path)
        template = RouteTemplate.index(of: path)
    }

    /// The GraphQL API's route, wherever its path is: counted under `graphql`.
    static let graphQL = GatewayRoute(path: "graphql", destination: .graphQL)

    /// The app registry's API, with the path below `AppsAdmin.path` (empty for the list).
    /// Counted as outside the mount: it is no app's traffic.
    static func appsAdmin(_ rest: String) -> GatewayRoute {
        GatewayRoute(path: rest, destination: .appsAdmin, template: RouteTemplate.index(of: nil))
    }

    private init(path: String, destination: Destination, template: Int? = nil) {
        self.path = path
        self.destination = destination
        self.template = template ?? RouteTemplate.index(of: path)
    }

    static func destination(method: String, path: String?) -> Destination {
        guard let path else { return .unknown }
        switch path {
        case "health" where method == "GET" || method == "POST": return .health
        case "health/ready" where method == "GET": return .readiness
        default: break
        }
        if isUnder("files", path) { return .files }
        if isUnder("apps", path) { return .publicPages }
        return ServiceRoute.owner(of: path).map(Destination.service) ?? .unknown
    }

    /// `path` is `segment` or below it.
    private static func isUnder(_ segment: String, _ path: String) -> Bool {
        path.hasPrefix(segment) && (path.utf8.count == segment.utf8.count
            || path.utf8[path.utf8.index(path.utf8.startIndex, offsetBy: segment.utf8.count)] == UInt8(ascii: "/"))
    }
}
