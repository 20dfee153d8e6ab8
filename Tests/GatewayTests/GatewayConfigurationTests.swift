import GraphQL
import Messaging
import Runtime
import Testing
@testable import GatewayCore

@Suite struct GatewayConfigurationTests {
    @Test func defaultsWorkLocally() throws {
        let config = try GatewayConfiguration.fromEnvironment(Environment([:]))
        #expect(config.mountPath == "/parse")
        #expect(config.port == 1337)
        #expect(config.maxBodyBytes == 20 * 1_048_576)
        #expect(config.host == "127.0.0.1")
        #expect(config.applicationId == "myAppId")
        #expect(config.masterKey == "myMasterKey")
        #expect(config.readOnlyMasterKey == nil)
        #expect(config.masterKeyIPs.allows("127.0.0.1"))
        #expect(config.masterKeyIPs.allows("::1"))
        #expect(!config.masterKeyIPs.allows("10.0.0.1"))
        #expect(!config.clientKeys.anyConfigured)
        #expect(config.logLevel == .info)
        #expect(config.requestTimeout == .milliseconds(10_000))
        #expect(config.amqpURL == (try AMQPURL("amqp://guest:guest@127.0.0.1:15682/")))
    }

    @Test func graphQLIsMountedBesideTheAPIWithItsLimits() throws {
        let defaults = try GatewayConfiguration.fromEnvironment(Environment([:]))
        #expect(defaults.graphQLPath == "/graphql")
        #expect(defaults.graphQLLimits == .none)
        let set = try GatewayConfiguration.fromEnvironment(Environment([
            "PARSE_SERVER_GRAPHQL_PATH": "api/graphql/", "PARSE_SERVER_REQUEST_COMPLEXITY_GRAPHQL_DEPTH": "5",
            "PARSE_SERVER_REQUEST_COMPLEXITY_GRAPHQL_FIELDS": "-1",
        ]))
        #expect(set.graphQLPath == "/api/graphql")
        #expect(set.graphQLLimits == GraphQLLimits(maximumDepth: 5, maximumFields: nil))
        #expect(try GatewayConfiguration.fromEnvironment(Environment(["PARSE_SERVER_MOUNT_GRAPHQL": "false"])).graphQLPath == nil)
        #expect(throws: ConfigurationError.self) {
            try GatewayConfiguration.fromEnvironment(Environment(["PARSE_SERVER_REQUEST_COMPLEXITY_GRAPHQL_FIELDS": "0"]))
        }
    }

    @Test(arguments: [("parse/", "/parse"), ("parse", "/parse"), ("/parse///", "/parse"), ("/", "/"),
                      ("//", "/"), ("/api/v1/", "/api/v1"), ("", "/parse")])
    func mountPathIsNormalised(raw: String, expected: String) throws {
        let config = try GatewayConfiguration.fromEnvironment(Environment(["PARSE_SERVER_MOUNT_PATH": raw]))
        #expect(config.mountPath == expected)
    }

    @Test func readsSettings() throws {
        let config = try GatewayConfiguration.fromEnvironment(Environment([
            "PORT": "8080", "PARSE_SERVER_HOST": "0.0.0.0", "PARSE_SERVER_APPLICATION_ID": "app",
            "PARSE_SERVER_MASTER_KEY": "mk", "PARSE_SERVER_MASTER_KEY_IPS": "10.0.0.0/8, ::1",
            "PARSE_SERVER_REST_API_KEY": "rest", "PARSE_SERVER_MAX_UPLOAD_SIZE": "512kb",
            "PARSE_LOG_LEVEL": "warn", "PARSE_AMQP_URL": "amqp://u:p@broker:5673/parse",
        ]))
        #expect(config.port == 8080)
        #expect(config.host == "0.0.0.0")
        #expect(config.applicationId == "app")
        #expect(config.masterKey == "mk")
        #expect(config.masterKeyIPs.allows("10.1.2.3"))
        #expect(!config.masterKeyIPs.allows("127.0.0.1"))
        #expect(config.clientKeys == ClientKeys(restAPIKey: "rest"))
        #expect(config.maxBodyBytes == 512 * 1024)
        #expect(config.logLevel == .warning)
        #expect(config.amqpURL.host == "broker")
        #expect(config.amqpURL.vhost == "parse")
    }

    @Test(arguments: ["abc", "65536", "-1", "80.5"])
    func invalidPortThrows(port: String) {
        #expect(throws: ConfigurationError.self) {
            try GatewayConfiguration.fromEnvironment(Environment(["PORT": port]))
        }
    }

    @Test(arguments: [("PARSE_LOG_LEVEL", "loud"), ("PARSE_SERVER_MAX_UPLOAD_SIZE", "big"),
                      ("PARSE_SERVER_MASTER_KEY_IPS", "10.0.0.0/99"), ("PARSE_REQUEST_TIMEOUT_MS", "0"),
                      ("PARSE_HTTP_THREADS", "65")])
    func invalidSettingsThrow(key: String, value: String) {
        #expect(throws: ConfigurationError.self) {
            try GatewayConfiguration.fromEnvironment(Environment([key: value]))
        }
    }

    @Test func invalidBrokerURLThrows() {
        #expect(throws: MessagingError.self) {
            try GatewayConfiguration.fromEnvironment(Environment(["PARSE_AMQP_URL": "http://broker/"]))
        }
    }

    @Test func readOnlyMasterKeyMustDifferFromTheMasterKey() throws {
        let config = try GatewayConfiguration.fromEnvironment(Environment(["PARSE_SERVER_READ_ONLY_MASTER_KEY": "reader"]))
        #expect(config.readOnlyMasterKey == "reader")
        #expect(throws: ConfigurationError.self) {
            try GatewayConfiguration.fromEnvironment(Environment(["PARSE_SERVER_MASTER_KEY": "same",
                                                                  "PARSE_SERVER_READ_ONLY_MASTER_KEY": "same"]))
        }
    }
}
