import Contracts
import Storage

/// Where the directory reads the registrations (`HookStore`; a double in the directory's tests).
protocol TargetSource: Sendable {
    func snapshot() async throws -> TargetSnapshot
}

extension HookStore: TargetSource {}

/// The registrations as this process last read them. Calls look targets up here instead of asking PostgreSQL each
/// time; a change made through this process drops the copy at once, and a change made through another replica
/// is seen once the copy is older than `maxAge` (each parse-server instance, by comparison, sees only the hook
/// changes it handled itself).
actor TargetDirectory {
    private let source: any TargetSource
    private let maxAge: Duration
    private var cached: (snapshot: TargetSnapshot, loadedAt: ContinuousClock.Instant)?
    /// Counts `invalidate` calls: a read begun before one may predate the change, so it is not kept.
    private var generation = 0

    init(source: any TargetSource, maxAge: Duration = .seconds(1)) {
        self.source = source
        self.maxAge = maxAge
    }

    func snapshot() async throws -> TargetSnapshot {
        if let cached, ContinuousClock.now - cached.loadedAt < maxAge { return cached.snapshot }
        return try await load()
    }

    /// Read now, whatever the copy's age: for the trigger lists the writing services ask for after a
    /// `hooks.changed`. Such a list must hold the change announced, since a service keeps it until the next
    /// change, and a copy made a moment before the change (here or in another replica) would not.
    func fresh() async throws -> TargetSnapshot {
        try await load()
    }

    func invalidate() {
        cached = nil
        generation += 1
    }

    private func load() async throws -> TargetSnapshot {
        let started = ContinuousClock.now, generation = self.generation
        let snapshot = try await source.snapshot()
        if generation == self.generation { cached = (snapshot, started) }
        return snapshot
    }
}
