import Contracts
import Storage

/// Where the directory reads the registrations (`HookStore`; a double in the directory's tests).
protocol TargetSource: Sendable {
    func snapshot() async throws -> TargetSnapshot
    /// The registrations' generation as committed now: one small statement.
    func generation() async throws -> Int64
}

extension HookStore: TargetSource {}

/// The registrations as this process last read them. A call checks the copy's generation against the one committed
/// (one small statement instead of reading every registration), so a change answered by any cloud replica is in
/// force for the next call here; a change made through this process also drops the copy at once.
actor TargetDirectory {
    private let source: any TargetSource
    private var cached: TargetSnapshot?

    init(source: any TargetSource) {
        self.source = source
    }

    func snapshot() async throws -> TargetSnapshot {
        let committed = try await source.generation()
        if let cached, cached.generation >= committed { return cached }
        return try await load()
    }

    /// Read now: for the trigger lists the writing services ask for when their copy is older than the generation
    /// their database holds, which must hold every change up to it.
    func fresh() async throws -> TargetSnapshot {
        try await load()
    }

    func invalidate() {
        cached = nil
    }

    private func load() async throws -> TargetSnapshot {
        let snapshot = try await source.snapshot()
        if snapshot.generation >= cached?.generation ?? -1 { cached = snapshot }
        return snapshot
    }
}
