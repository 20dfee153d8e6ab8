/// The services behind the gateway; each one's command queue carries its name.
public enum ServiceName: String, Codable, Sendable, CaseIterable {
    case auth, posts, votes, files, cloud

    /// The durable queue the service consumes its commands from.
    public var commandQueue: String { rawValue }
    /// Where its commands go after failing too often, so they are kept for inspection instead of lost.
    public var deadLetterQueue: String { rawValue + ".dead" }
}
