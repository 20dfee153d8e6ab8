/// `session.cache.lease.v1` (a gateway to `auth`): the gateway may trust the sessions it cached for `length` from
/// when it sent this, and `auth` promises in return to tell it (`SessionCacheEviction`, on `queue`) about every
/// revoked session and changed role before answering the change, or to wait until the lease has ended. `release`
/// gives the lease back.
public struct SessionCacheLease: Codable, Sendable, Equatable {
    public static let type = "session.cache.lease.v1"
    /// Every lease's length, fixed so that both sides count the same. It bounds how long a change waits for a
    /// gateway that stopped answering.
    public static let length = Duration.seconds(3)

    public var queue: String
    public var release: Bool

    public init(queue: String, release: Bool = false) {
        self.queue = queue
        self.release = release
    }
}

/// The answer to a `SessionCacheLease`. `continued` is false when the gateway held no lease just before (its first,
/// one that had ended, or one `auth` took back after an eviction went unanswered): whatever it cached before may
/// have missed an eviction and has to go.
public struct SessionCacheLeaseGranted: Codable, Sendable, Equatable {
    public var continued: Bool

    public init(continued: Bool) { self.continued = continued }
}

/// `session.cache.evict.v1` (`auth` to each gateway holding a lease, before it answers the change): drop the cached
/// sessions of `userIds`, and every cached session when `everyone` (a role or its members changed).
public struct SessionCacheEviction: Codable, Sendable, Equatable {
    public static let type = "session.cache.evict.v1"

    public var userIds: [String]
    public var everyone: Bool

    public init(userIds: [String] = [], everyone: Bool = false) {
        self.userIds = userIds
        self.everyone = everyone
    }

    public var isEmpty: Bool { userIds.isEmpty && !everyone }
}
