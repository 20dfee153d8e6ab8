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
    /// Events written to the service's outbox and not yet confirmed by the broker, and the age in seconds of the
    /// oldest of them (0 when none waits); absent from services without an outbox.
    public var outboxPending: Int?
    public var outboxOldestAgeSeconds: Double?
    /// The PostgreSQL server the service writes to (`address:port`: the primary, with several nodes), the standbys
    /// streaming from it, and the WAL bytes the furthest one has yet to replay.
    public var databaseServer: String?
    public var standbys: Int?
    public var replicationLagBytes: Double?

    public init(service: String, instance: String, database: String, version: String, outboxPending: Int? = nil,
                outboxOldestAgeSeconds: Double? = nil) {
        self.service = service
        self.instance = instance
        self.database = database
        self.version = version
        self.outboxPending = outboxPending
        self.outboxOldestAgeSeconds = outboxOldestAgeSeconds
    }
}
