/// The services behind the gateway; each one's command queue carries its name.
public enum ServiceName: String, Codable, Sendable, CaseIterable {
    case auth, posts, votes, files, cloud

    /// The durable queue the service consumes its commands from.
    public var commandQueue: String { rawValue }
    /// Where its commands go after failing too often, so they are kept for inspection instead of lost.
    public var deadLetterQueue: String { rawValue + ".dead" }

    /// The service that stores a class: auth its users, roles and sessions, cloud the jobs' statuses, posts the rest
    /// (docs/architecture.md, "Routes to services"). The gateway routes `/classes/<name>` by it, and a service sends a
    /// subquery on another's class there.
    public static func owner(ofClass className: some StringProtocol) -> ServiceName {
        if className == "_User" || className == "_Role" || className == "_Session" { return .auth }
        if className == "_JobStatus" { return .cloud }
        return .posts
    }
}
