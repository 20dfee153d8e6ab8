import Contracts
import Messaging
import Runtime

/// Before auth answers a request that revoked sessions or changed roles, every gateway holding a session cache
/// lease confirms it dropped what the change makes stale; one that does not confirm in time loses its lease, and
/// the answer waits until that lease has run out, when the gateway has stopped trusting its cache by itself. So
/// once a client has the answer, no gateway replica answers from a session as it was before (docs/architecture.md,
/// "Coherence").
struct SessionEvictionAnnouncer: Sendable {
    let leases: SessionCacheLeases
    let calls: RPCClient
    let logger: Logger

    /// Runs `body` gathering its evictions, and announces them whether it succeeded or not: a change it committed
    /// before failing must reach the caches too.
    func announcing<T: Sendable>(requestId: String, _ body: () async throws -> T) async throws -> T {
        let evictions = SessionEvictions()
        do {
            let answer = try await SessionEvictions.$current.withValue(evictions) { try await body() }
            await announce(evictions.eviction, requestId: requestId)
            return answer
        } catch {
            await announce(evictions.eviction, requestId: requestId)
            throw error
        }
    }

    func announce(_ eviction: SessionCacheEviction, requestId: String) async {
        guard !eviction.isEmpty else { return }
        let holders: [SessionCacheLeases.Holder]
        do {
            holders = try await leases.holders()
        } catch {
            // Renewals write to the same database, so when it cannot be read, leases are most likely not renewed
            // either and all end within a lease's length: waiting that long is the best left to do.
            logger.warning("the session cache leases could not be read; waiting for them to end", ["error": "\(error)"])
            try? await Task.sleep(for: SessionCacheLease.length)
            return
        }
        await withTaskGroup(of: Void.self) { group in
            for holder in holders {
                group.addTask { await evict(eviction, at: holder, requestId: requestId) }
            }
        }
    }

    private func evict(_ eviction: SessionCacheEviction, at holder: SessionCacheLeases.Holder, requestId: String) async {
        do {
            _ = try await calls.send(SessionCacheEviction.type, eviction, toQueue: holder.queue, requestId: requestId,
                                     identity: .master, timeout: holder.remaining, expecting: Empty.self)
        } catch {
            logger.warning("a gateway did not confirm a session eviction; waiting for its lease to end",
                           ["queue": holder.queue, "error": "\(error)"])
            let remaining = (try? await leases.takeBack(holder.queue)) ?? holder.remaining
            try? await Task.sleep(for: remaining)
        }
    }
}
