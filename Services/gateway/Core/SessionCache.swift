import Contracts
import Synchronization

/// Resolved sessions, kept briefly so a request with a known token needs no round trip to `auth`.
/// Entries are used only while the gateway's lease with `auth` runs (`SessionCacheLeaseHolder`); they go when their
/// time is up, when an eviction names their user, or all at once when roles changed or a new lease starts (the
/// evictions of the time without one may have been missed).
final class SessionCache: Sendable {
    private struct Entry {
        let identity: Identity
        let expires: ContinuousClock.Instant
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// When each user last had a session revoked, so an answer fetched before that moment is not cached.
        var revokedAt: [String: ContinuousClock.Instant] = [:]
        /// When roles last changed, so an answer fetched before that moment (with the old roles) is not cached.
        var rolesChangedAt: ContinuousClock.Instant?
        /// The lease: entries are used until `trustedUntil`, and only answers fetched since `trustedSince` are kept.
        var trustedSince: ContinuousClock.Instant?
        var trustedUntil: ContinuousClock.Instant?

        func isTrusted(at now: ContinuousClock.Instant) -> Bool { trustedUntil.map { now < $0 } ?? false }
    }

    let timeToLive: Duration
    private let capacity: Int
    private let state = Mutex(State())

    init(timeToLive: Duration, capacity: Int = 50_000) {
        self.timeToLive = timeToLive
        self.capacity = capacity
    }

    var isEnabled: Bool { timeToLive > .zero }

    /// The lease runs until `until` (counted from before it was asked for). A lease that does not continue the one
    /// before (`continued` false, or the one before already ended) starts an empty cache.
    func trust(until: ContinuousClock.Instant, continued: Bool, now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            if !continued || !state.isTrusted(at: now) {
                state.entries.removeAll()
                state.trustedSince = now
            }
            state.trustedUntil = until
        }
    }

    func lookup(_ token: String, now: ContinuousClock.Instant = .now) -> Identity? {
        state.withLock { state in
            guard state.isTrusted(at: now) else {
                state.entries.removeAll()
                return nil
            }
            guard let entry = state.entries[token] else { return nil }
            guard entry.expires > now else {
                state.entries[token] = nil
                return nil
            }
            return entry.identity
        }
    }

    /// Caches `identity` unless its user had a session revoked after `lookupStarted`, or the lease is not the one
    /// that ran then (the answer may predate a change this gateway was not told about).
    func store(_ token: String, _ identity: Identity, lookupStarted: ContinuousClock.Instant,
               now: ContinuousClock.Instant = .now) {
        guard isEnabled else { return }
        state.withLock { state in
            guard state.isTrusted(at: now), let since = state.trustedSince, since <= lookupStarted else { return }
            if let userId = identity.userId, let revoked = state.revokedAt[userId], revoked >= lookupStarted { return }
            if let changed = state.rolesChangedAt, changed >= lookupStarted { return }
            if state.entries.count >= capacity {
                state.entries = state.entries.filter { $0.value.expires > now }
                if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            }
            state.entries[token] = Entry(identity: identity, expires: now + timeToLive)
        }
    }

    /// Drops every cached session of `userId`.
    func evict(userId: String, now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state.entries = state.entries.filter { $0.value.identity.userId != userId }
            state.revokedAt[userId] = now
            // Marks older than any lookup in flight are no longer needed.
            if state.revokedAt.count > 1_000 {
                state.revokedAt = state.revokedAt.filter { now - $0.value < .seconds(60) }
            }
        }
    }

    /// A role or its members changed: every cached identity may carry roles it no longer has (or lack new ones).
    func rolesChanged(now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state.entries.removeAll()
            state.rolesChangedAt = now
        }
    }

    func removeAll() {
        state.withLock { $0.entries.removeAll() }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
