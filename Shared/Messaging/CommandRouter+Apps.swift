import Contracts
import ParseWire
import Runtime

/// The command routers of the apps a service serves besides the stack's own, each over that app's own database.
public protocol AppRouters: Sendable {
    /// `app`'s router, made the first time the app is asked for; throws the `ParseError` its caller gets when no
    /// such app exists, and any other error for a fault worth trying again (its database not reachable yet).
    func router(for app: String) async throws -> CommandRouter
}

extension CommandRouter {
    /// This router for the stack's own app's commands, and `apps`' router of the command's app (`AppContext`, which
    /// the server set from the command's envelope) for every other app's: each app's commands reach only the
    /// handlers made over that app's database and caches.
    public func dispatchingByApp(_ apps: any AppRouters) -> CommandRouter {
        var router = CommandRouter()
        for (type, own) in routes {
            router.routes[type] = { delivery, logger in
                guard let app = AppContext.current else { return try await own(delivery, logger) }
                let route: Route
                do {
                    guard let found = try await apps.router(for: app).route(type) else {
                        throw ParseError(.commandUnavailable, "The app \(app) does not handle \(type) commands.")
                    }
                    route = found
                } catch let error as ParseError {
                    return RouteReply(body: try Self.failure(error), refused: true)
                }
                return try await route(delivery, logger.with("app", app))
            }
        }
        return router
    }
}
