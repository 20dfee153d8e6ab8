import Runtime

extension CommandRouter {
    /// Adds every route of `other`: a service's own handlers next to the host's `ping.v1`.
    public mutating func merge(_ other: CommandRouter) {
        routes.merge(other.routes) { _, theirs in theirs }
    }

    /// The reply body `CommandServer` would send for `delivery`, without a broker (unit tests run a service's
    /// handlers this way, over `InMemoryBus`); nil for a type no handler takes. An error that is not a
    /// `ParseError` is thrown, as the server would retry the command.
    public func answer(_ delivery: Delivery, logger: Logger) async throws -> [UInt8]? {
        try await reply(to: delivery, logger: logger)?.body
    }

    /// `answer` with the reply's headers (a raw reply's `x-status` and `file-*` headers).
    public func reply(to delivery: Delivery, logger: Logger) async throws -> (body: [UInt8], headers: [String: String])? {
        guard let route = routes[delivery.type ?? ""] else { return nil }
        let reply = try await route(delivery, logger)
        return (reply.body, reply.headers)
    }
}
