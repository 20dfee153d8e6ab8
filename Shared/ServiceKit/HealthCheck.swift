import Contracts
import Messaging
import Runtime

/// `<service> --healthcheck`: exits 0 when a replica of the service answers a ping over the broker within 2 s.
/// Used by container healthchecks and by the stack script, so "healthy" means "reachable the way the gateway
/// reaches it", not merely "the process exists".
enum HealthCheck {
    static func run(_ configuration: ServiceConfiguration, logger: Logger) async -> Bool {
        let quiet = Logger(service: logger.service, level: .error)
        let client = RPCClient(url: configuration.amqpURL, name: "\(configuration.service.rawValue)-healthcheck",
                               eventExchange: configuration.eventExchange, logger: quiet)
        client.start()
        let healthy = await ping(client, configuration.service, logger: logger)
        await client.stop()
        return healthy
    }

    private static func ping(_ client: RPCClient, _ service: ServiceName, logger: Logger) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(2)
        while !client.isConnected {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        do {
            let pong: Pong = try await client.send(Ping.type, Ping(), to: service, requestId: "healthcheck",
                                                   identity: .anonymous, timeout: deadline - ContinuousClock.now)
            return pong.database == "ok"
        } catch {
            logger.error("healthcheck failed", ["error": "\(error)"])
            return false
        }
    }
}
