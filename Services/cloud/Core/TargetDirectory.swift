import Contracts
import Storage

/// The registrations as this process last read them. Calls look targets up here instead of asking PostgreSQL each
/// time; a change made through this process drops the copy at once, and a change made through another replica
/// is seen once the copy is older than `maxAge` (each parse-server instance, by comparison, sees only the hook
/// changes it handled itself).
actor TargetDirectory {
    private let store: HookStore
    private let maxAge: Duration
    private var cached: (snapshot: TargetSnapshot, loadedAt: ContinuousClock.Instant)?

    init(store: HookStore, maxAge: Duration = .seconds(1)) {
        self.store = store
        self.maxAge = maxAge
    }

    func snapshot() async throws -> TargetSnapshot {
        if let cached, ContinuousClock.now - cached.loadedAt < maxAge { return cached.snapshot }
        let started = ContinuousClock.now
        let snapshot = try await store.snapshot()
        cached = (snapshot, started)
        return snapshot
    }

    func invalidate() { cached = nil }
}
