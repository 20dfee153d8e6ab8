import Query
import Runtime

/// The posts service's own settings (see the README's configuration table). Names follow parse-server's options.
public struct PostsConfiguration: Sendable {
    /// `PARSE_SERVER_ALLOW_CLIENT_CLASS_CREATION`: whether a request without the master key may create a class by
    /// writing to it. On by default here (the tutorials rely on it); switch it off in production.
    public var allowClientClassCreation: Bool
    /// `PARSE_SERVER_DEFAULT_LIMIT`: page size of a query without `limit`.
    public var defaultLimit: Int
    /// `PARSE_SERVER_MAX_LIMIT`: larger limits are clamped to it; nil for none.
    public var maxLimit: Int?
    public var applicationId: String
    /// `PARSE_PUBLIC_SERVER_URL` (parse-server's `publicServerURL`): the base of the `url` of `File` values, as the
    /// gateway uses it for upload answers; nil: the server URL the client used.
    public var publicServerURL: String?
    /// `PARSE_SERVER_REQUEST_COMPLEXITY_*`: limits on a query's include paths and nesting.
    public var requestComplexity: RequestComplexity
    /// `PARSE_SERVER_ALLOW_CUSTOM_OBJECT_ID`: a create may name its own `objectId`.
    public var allowCustomObjectId = false
    /// parse-server's `schema` option (`PARSE_SERVER_SCHEMA_*`); nil when no definitions are given.
    public var schema: SchemaOptions?

    public init(allowClientClassCreation: Bool = true, defaultLimit: Int = 100, maxLimit: Int? = nil,
                applicationId: String = "myAppId", publicServerURL: String? = nil,
                requestComplexity: RequestComplexity = .unlimited) {
        self.requestComplexity = requestComplexity
        self.allowClientClassCreation = allowClientClassCreation
        self.defaultLimit = defaultLimit
        self.maxLimit = maxLimit
        self.applicationId = applicationId
        self.publicServerURL = publicServerURL
    }

    public static func fromEnvironment(_ env: Environment = Environment()) throws -> PostsConfiguration {
        var configuration = try settings(env)
        configuration.allowCustomObjectId = try env.bool("PARSE_SERVER_ALLOW_CUSTOM_OBJECT_ID", default: false)
        configuration.schema = try SchemaOptions.fromEnvironment(env)
        return configuration
    }

    private static func settings(_ env: Environment) throws -> PostsConfiguration {
        let allow = env.string("PARSE_SERVER_ALLOW_CLIENT_CLASS_CREATION", default: "true").lowercased()
        guard ["true", "false", "1", "0", "yes", "no"].contains(allow) else {
            throw ConfigurationError("PARSE_SERVER_ALLOW_CLIENT_CLASS_CREATION must be true or false, got '\(allow)'")
        }
        let maxLimit = try env.int("PARSE_SERVER_MAX_LIMIT", default: 0, in: 0...Int.max)
        return PostsConfiguration(
            allowClientClassCreation: ["true", "1", "yes"].contains(allow),
            defaultLimit: try env.int("PARSE_SERVER_DEFAULT_LIMIT", default: 100, in: 1...Int.max),
            maxLimit: maxLimit == 0 ? nil : maxLimit,
            applicationId: env.string("PARSE_SERVER_APPLICATION_ID", default: "myAppId"),
            publicServerURL: env.optional("PARSE_PUBLIC_SERVER_URL").map { url in
                var url = url
                while url.hasSuffix("/") { url.removeLast() }
                return url
            },
            requestComplexity: try RequestComplexity.fromEnvironment(env))
    }
}
