/// `config.updated` (posts): Parse Config's parameters changed; `keys` names those set or deleted.
public struct ConfigUpdated: Codable, Sendable, Equatable {
    public static let routingKey = "config.updated"
    public static let type = "config.updated.v1"

    public var keys: [String]

    public init(keys: [String]) {
        self.keys = keys
    }
}

/// `analytics.<name>` (posts, `type` `analytics.<name>.v1`): a client sent an analytics event (`AppOpened` or its
/// own), with when it happened, its dimensions, and who sent it (the signed-in user, the installation).
public struct AnalyticsEventRecorded: Codable, Sendable, Equatable {
    public static func routingKey(_ name: String) -> String { "analytics.\(name)" }
    public static func type(_ name: String) -> String { "analytics.\(name).v1" }

    public var name: String
    /// An ISO 8601 date.
    public var at: String
    public var dimensions: [String: String]
    /// The signed-in user's id.
    public var user: String?
    public var installationId: String?

    public init(name: String, at: String, dimensions: [String: String], user: String? = nil, installationId: String? = nil) {
        self.name = name
        self.at = at
        self.dimensions = dimensions
        self.user = user
        self.installationId = installationId
    }
}
