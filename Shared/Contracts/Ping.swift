/// `ping.v1`: asks a service whether it is up and its database answers. Used by readiness checks.
public struct Ping: Codable, Sendable, Equatable {
    public static let type = "ping.v1"
    public init() {}
}

/// The answer to `ping.v1`.
public struct Pong: Codable, Sendable, Equatable {
    public var service: String
    public var instance: String
    public var database: String
    public var version: String

    public init(service: String, instance: String, database: String, version: String) {
        self.service = service
        self.instance = instance
        self.database = database
        self.version = version
    }
}
