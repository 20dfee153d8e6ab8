import Contracts
import Synchronization

/// What a request revoked (sessions of users) or changed (roles), gathered while it runs, so that the gateways'
/// session caches hear of it before the request is answered (`SessionEvictionAnnouncer`). Filled where the
/// matching events are written (`AuthEvents`); a change rolled back afterwards only empties a cache for nothing.
final class SessionEvictions: Sendable {
    @TaskLocal static var current: SessionEvictions?

    private let gathered = Mutex(SessionCacheEviction())

    func sessionRevoked(userId: String) {
        gathered.withLock { if !$0.userIds.contains(userId) { $0.userIds.append(userId) } }
    }

    func rolesChanged() {
        gathered.withLock { $0.everyone = true }
    }

    var eviction: SessionCacheEviction { gathered.withLock { $0 } }
}
