import Foundation
import Runtime

/// A worker's settings, from the environment by default (docs/cloud-code.md).
public struct CloudWorkerConfiguration: Sendable {
    /// The broker (`PARSE_AMQP_URL`).
    public var amqpURL: String
    /// The queue this worker consumes (`PARSE_CLOUD_WORKER_QUEUE`); workers sharing it share the calls.
    public var queue: String
    /// The REST API the handlers call back into (`PARSE_SERVER_URL`, e.g. `http://127.0.0.1:1337/parse`).
    public var serverURL: String
    public var applicationId: String
    public var masterKey: String
    /// Sent with every API call when the server requires a client key (`PARSE_SERVER_REST_API_KEY`).
    public var restAPIKey: String?
    public var eventExchange: String
    /// Calls this process handles at once (`PARSE_AMQP_PREFETCH`).
    public var prefetch: Int
    /// Names this process in the logs (`PARSE_CLOUD_WORKER_INSTANCE`; host and pid by default).
    public var instance: String
    /// The lines `GET /scriptlog` keeps from this worker (`PARSE_SERVER_LOG_LEVEL`), handlers' `log` included.
    public var keptLogLevel: ScriptLogLevel? = .info

    public init(amqpURL: String = "amqp://guest:guest@127.0.0.1:15682/", queue: String = "cloud.worker",
                serverURL: String = "http://127.0.0.1:1337/parse", applicationId: String = "myAppId",
                masterKey: String = "myMasterKey", restAPIKey: String? = nil, eventExchange: String = "parse.events",
                prefetch: Int = 32,
                instance: String = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)") {
        self.amqpURL = amqpURL
        self.queue = queue
        self.serverURL = serverURL
        self.applicationId = applicationId
        self.masterKey = masterKey
        self.restAPIKey = restAPIKey
        self.eventExchange = eventExchange
        self.prefetch = prefetch
        self.instance = instance
    }

    public static func fromEnvironment(_ env: Environment = Environment()) throws -> CloudWorkerConfiguration {
        var configuration = CloudWorkerConfiguration()
        configuration.amqpURL = env.string("PARSE_AMQP_URL", default: configuration.amqpURL)
        configuration.queue = env.string("PARSE_CLOUD_WORKER_QUEUE", default: configuration.queue)
        configuration.serverURL = env.string("PARSE_SERVER_URL", default: configuration.serverURL)
        configuration.applicationId = env.string("PARSE_SERVER_APPLICATION_ID", default: configuration.applicationId)
        configuration.masterKey = env.string("PARSE_SERVER_MASTER_KEY", default: configuration.masterKey)
        let restKey = env.string("PARSE_SERVER_REST_API_KEY", default: "")
        configuration.restAPIKey = restKey.isEmpty ? nil : restKey
        configuration.eventExchange = env.string("PARSE_EVENTS_EXCHANGE", default: configuration.eventExchange)
        configuration.prefetch = try env.int("PARSE_AMQP_PREFETCH", default: configuration.prefetch, in: 1...10_000)
        configuration.instance = env.string("PARSE_CLOUD_WORKER_INSTANCE", default: configuration.instance)
        configuration.keptLogLevel = try ScriptLogLevel.kept(env)
        guard !configuration.queue.isEmpty else { throw ConfigurationError("PARSE_CLOUD_WORKER_QUEUE must not be empty") }
        return configuration
    }
}
