import Contracts
import Foundation
import Messaging
import Runtime

/// The push adapter's settings (see the README's configuration table).
public struct PushAdapterConfiguration: Sendable {
    public var amqpURL: AMQPURL
    public var eventExchange: String
    /// `PARSE_PUSH_QUEUE`: the adapter's durable queue; replicas share it.
    public var queue: String
    /// `PARSE_PUSH_ROUTING_KEYS`: which device types it delivers (`push.requested.ios`), all by default.
    public var routingKeys: [String]
    /// `PARSE_PUSH_HTTP_ENDPOINTS`: where each device type's notifications are POSTed, `*` for every other type.
    public var endpoints: PushEndpoints
    public var requestTimeout: Duration
    /// Deliveries in flight at once for one event.
    public var concurrency: Int
    public var logLevel: LogLevel

    public init(amqpURL: AMQPURL, eventExchange: String = "parse.events", queue: String = "push.http",
                routingKeys: [String] = ["push.requested.#"], endpoints: PushEndpoints, requestTimeout: Duration = .seconds(10),
                concurrency: Int = 16, logLevel: LogLevel = .info) {
        self.amqpURL = amqpURL
        self.eventExchange = eventExchange
        self.queue = queue
        self.routingKeys = routingKeys
        self.endpoints = endpoints
        self.requestTimeout = requestTimeout
        self.concurrency = concurrency
        self.logLevel = logLevel
    }

    private static func endpoints(_ text: String) throws -> PushEndpoints {
        do {
            return try PushEndpoints(text)
        } catch {
            throw ConfigurationError("PARSE_PUSH_HTTP_ENDPOINTS: \(error.message)")
        }
    }

    public static func fromEnvironment(_ env: Environment = Environment()) throws -> PushAdapterConfiguration {
        let level = env.string("PARSE_LOG_LEVEL", default: "info")
        guard let logLevel = LogLevel(name: level) else { throw ConfigurationError("PARSE_LOG_LEVEL: unknown level '\(level)'") }
        return PushAdapterConfiguration(
            amqpURL: try AMQPURL(env.string("PARSE_AMQP_URL", default: "amqp://guest:guest@127.0.0.1:15682/")),
            eventExchange: env.string("PARSE_EVENTS_EXCHANGE", default: "parse.events"),
            queue: env.string("PARSE_PUSH_QUEUE", default: "push.http"),
            routingKeys: env.string("PARSE_PUSH_ROUTING_KEYS", default: "push.requested.#")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty },
            endpoints: try endpoints(env.string("PARSE_PUSH_HTTP_ENDPOINTS", default: "")),
            requestTimeout: .milliseconds(try env.int("PARSE_PUSH_HTTP_TIMEOUT_MS", default: 10_000, in: 1...600_000)),
            concurrency: try env.int("PARSE_PUSH_CONCURRENCY", default: 16, in: 1...1_024),
            logLevel: logLevel)
    }
}
