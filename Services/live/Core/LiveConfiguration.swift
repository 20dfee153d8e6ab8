import GraphQL
import Messaging
import ParseGraphQL
import Query
import Runtime

/// The `live` service's settings (README's configuration table).
public struct LiveConfiguration: Sendable {
    public var host: String
    public var port: UInt16
    public var keys: LiveKeys
    public var amqpURL: AMQPURL
    public var eventExchange: String
    public var logLevel: LogLevel
    /// The lines kept for `GET /scriptlog` (`PARSE_SERVER_LOG_LEVEL`); nil keeps none.
    public var keptLogLevel: ScriptLogLevel?
    public var requestTimeout: Duration
    public var limits: SocketLoopLimits
    public var requestComplexity: RequestComplexity
    /// The bounds on a GraphQL subscription's document (none for the master key), as the gateway's on queries.
    public var graphQLLimits: GraphQLLimits

    public static func fromEnvironment(_ env: Environment = Environment()) throws -> LiveConfiguration {
        let levelName = env.string("PARSE_LOG_LEVEL", default: "info")
        guard let level = LogLevel(name: levelName) else {
            throw ConfigurationError("PARSE_LOG_LEVEL must be debug, info, warning or error, got '\(levelName)'")
        }
        var clientKeys: [String: String] = [:]
        for (name, variable) in [("clientKey", "PARSE_SERVER_CLIENT_KEY"), ("restAPIKey", "PARSE_SERVER_REST_API_KEY"),
                                 ("javascriptKey", "PARSE_SERVER_JAVASCRIPT_KEY"), ("windowsKey", "PARSE_SERVER_DOT_NET_KEY")] {
            if let value = env.optional(variable) { clientKeys[name] = value }
        }
        let limits = SocketLoopLimits(
            maximumConnections: try env.int("PARSE_LIVE_QUERY_MAX_CONNECTIONS", default: 20_000, in: 1...1_000_000),
            maximumMessageSize: try env.byteSize("PARSE_LIVE_QUERY_MAX_MESSAGE_SIZE", default: "1mb"),
            maximumPendingBytes: try env.byteSize("PARSE_LIVE_QUERY_MAX_PENDING_BYTES", default: "4mb"),
            pingInterval: .milliseconds(try env.int("PARSE_LIVE_QUERY_WEBSOCKET_TIMEOUT", default: 10_000, in: 100...3_600_000)))
        return LiveConfiguration(
            host: env.string("PARSE_LIVE_QUERY_HOST", default: "127.0.0.1"),
            port: UInt16(try env.int("PARSE_LIVE_QUERY_PORT", default: 1338, in: 0...65_535)),
            keys: LiveKeys(applicationId: env.string("PARSE_SERVER_APPLICATION_ID", default: "myAppId"),
                           masterKey: env.string("PARSE_SERVER_MASTER_KEY", default: "myMasterKey"), clientKeys: clientKeys),
            amqpURL: try AMQPURL(env.string("PARSE_AMQP_URL", default: "amqp://guest:guest@127.0.0.1:15682/")),
            eventExchange: env.string("PARSE_EVENTS_EXCHANGE", default: "parse.events"),
            logLevel: level,
            keptLogLevel: try ScriptLogLevel.kept(env),
            requestTimeout: .milliseconds(try env.int("PARSE_REQUEST_TIMEOUT_MS", default: 10_000, in: 100...600_000)),
            limits: limits,
            requestComplexity: try RequestComplexity.fromEnvironment(env),
            graphQLLimits: try GraphQLLimits.fromEnvironment(env))
    }
}
