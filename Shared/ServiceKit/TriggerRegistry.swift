import Contracts
import Runtime
import Synchronization

/// Which triggers are registered, as Cloud Code last said (`cloud.triggers.list.v1`), so a write to a class
/// without triggers costs no call at all: `triggers(of:)` reads memory and never waits while the list is current.
///
/// The list carries the registrations' generation. A request that reads a newer generation in its service's
/// database (`CacheGenerations`, which Cloud Code advances before it answers a change) throws `StaleTriggerList`,
/// and its service reloads the list and runs the request again, so a change is in force for every request made
/// after it was answered. A `hooks.changed` event marks the list stale earlier; the next look-up then waits for
/// one reload (shared by every caller) and falls back to the stale list if Cloud Code does not answer. Until a first list has ever been loaded
/// (Cloud Code not deployed, or not reachable since this process started) every class counts as having no
/// triggers, and `maintain` keeps asking in the background (docs/cloud-code.md, "Triggers").
public final class TriggerRegistry: Sendable {
    struct State {
        var byClass: [String: Set<TriggerName>]?
        /// The generation of the registrations `byClass` holds.
        var generation: Int64 = -1
        /// A change was announced: look-ups wait for the next list.
        var stale = false
        /// The last load failed: look-ups use the list they have while `maintain` tries again.
        var retrying = false
        /// A load is under way; `loadWaiters` get its list.
        var loading = false
        var loadWaiters: [CheckedContinuation<[String: Set<TriggerName>]?, Never>] = []
        var failures = 0
    }

    private let runner: any CloudTriggerRunner
    private let logger: Logger
    private let loadTimeout: Duration
    private let state = Mutex(State())
    /// The loads, stopped when `maintain` ends with the service.
    private let loads = OwnedTasks("trigger list loads")

    /// The app whose registrations these are (`AppContext` when the registry was made): every load asks for its
    /// list, whichever task or notification starts the load.
    private let app: String?

    public init(runner: any CloudTriggerRunner, logger: Logger, loadTimeout: Duration = .seconds(2)) {
        app = AppContext.current
        self.runner = runner
        self.logger = logger
        self.loadTimeout = loadTimeout
    }

    /// The triggers registered for `className`; empty for most classes.
    public func triggers(of className: String) async -> Set<TriggerName> {
        let (current, stale) = state.withLock { ($0.byClass, $0.stale) }
        guard stale, current != nil else { return current?[className] ?? [] }
        let reloaded = await reload()
        return (reloaded ?? current)?[className] ?? []
    }

    public func has(_ name: TriggerName, on className: String) async -> Bool {
        await triggers(of: className).contains(name)
    }

    /// Whether a list has been loaded since the process started.
    public var isLoaded: Bool { state.withLock { $0.byClass != nil } }

    /// The generation of the registrations the list holds; -1 before the first load.
    public var generation: Int64 { state.withLock { $0.generation } }

    /// The generation of the list loaded now, -1 while none is. A request takes it before it looks anything up
    /// (every later look-up returns this list or a newer one) and is checked against it (`RegistrationsCheck`), so
    /// a reload meanwhile cannot make an older decision pass for current.
    var loadedGeneration: Int64 { state.withLock { $0.byClass == nil ? -1 : $0.generation } }

    /// Throws `StaleTriggerList` when the list a request decides with (`decidedWith`, else the current one) is
    /// older than `stored`, the generation the request read in its service's database. A process that has not
    /// loaded a list yet (it has just started, or Cloud Code has been unreachable since) throws too once
    /// registrations have ever existed (`stored` above 0): a request decided without them would skip triggers in
    /// force; with none ever registered it goes ahead.
    public func requireCurrent(_ stored: Int64?, decidedWith: Int64? = nil) throws(StaleTriggerList) {
        guard let stored, stored > 0 else { return }
        if (decidedWith ?? loadedGeneration) < stored { throw StaleTriggerList(generation: stored) }
    }

    /// Reloads the list until it holds generation `generation` or later (one try; it stays as it was when Cloud
    /// Code does not answer).
    public func refresh(toAtLeast generation: Int64) async {
        if self.generation >= generation { return }
        invalidate()
        await reload()
    }

    /// Registrations changed (or may have: the change notifications were interrupted).
    public func invalidate() {
        state.withLock { $0.stale = true }
    }

    /// Loads the list once, sharing a load already under way; nil when Cloud Code did not answer.
    @discardableResult
    public func reload() async -> [String: Set<TriggerName>]? {
        await withCheckedContinuation { startLoad(answering: $0) }
    }

    /// Marks the list stale and starts a load without waiting for it (a change was announced).
    public func reloadInBackground() {
        invalidate()
        startLoad(answering: nil)
    }

    /// Starts a load unless one is under way; `waiter` gets the list it loads.
    private func startLoad(answering waiter: CheckedContinuation<[String: Set<TriggerName>]?, Never>?) {
        let start = state.withLock { state -> Bool in
            if let waiter { state.loadWaiters.append(waiter) }
            guard !state.loading else { return false }
            state.loading = true
            // Cleared before the load starts, so a change announced while it runs marks the new list stale again.
            state.stale = false
            state.retrying = false
            return true
        }
        // Detached: a load serves every caller, so it must not end at the first caller's deadline.
        if start, !loads.spawnDetached({ await self.load() }) { loaded(nil) }
    }

    private func load() async {
        do {
            let registrations = try await AppContext.$current.withValue(app) { try await runner.listTriggers(timeout: loadTimeout) }
            let byClass = Dictionary(grouping: registrations.triggers, by: \.className).mapValues { Set($0.map(\.triggerName)) }
            state.withLock {
                $0.byClass = byClass
                $0.generation = registrations.generation
                $0.failures = 0
            }
            loaded(byClass)
        } catch {
            let failures = state.withLock { state in
                state.retrying = true
                state.failures += 1
                return state.failures
            }
            if failures == 1 || failures % 30 == 0 {
                logger.warning("cannot load the Cloud Code trigger registrations; retrying", ["error": "\(error)"])
            }
            loaded(nil)
        }
    }

    /// The load is over: its waiters get `list` (nil when Cloud Code did not answer).
    private func loaded(_ list: [String: Set<TriggerName>]?) {
        let waiters = state.withLock { state in
            state.loading = false
            defer { state.loadWaiters.removeAll() }
            return state.loadWaiters
        }
        waiters.forEach { $0.resume(returning: list) }
    }

    /// Keeps the list loaded: a first load with retries, then a reload whenever it goes stale. Also stale whenever
    /// the change notifications were interrupted (`listening` false then true), since one may have been missed.
    public func maintain(listening: @Sendable () -> Bool) async {
        var wasListening = false
        while !Task.isCancelled {
            let listeningNow = listening()
            if listeningNow && !wasListening { invalidate() }
            wasListening = listeningNow
            let due = state.withLock { $0.byClass == nil || $0.stale || $0.retrying }
            if due, await reload() == nil {
                let failures = state.withLock { $0.failures }
                // Each unanswered list request expires into `cloud.dead`, so a stack without Cloud Code is asked
                // rarely; a registration made meanwhile announces itself with `hooks.changed`.
                try? await Task.sleep(for: .milliseconds(min(100 * (1 << min(failures, 9)), 30_000)))
                continue
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        await loads.stop()
    }
}

/// A request met a trigger list older than the registrations its service's database says are in force: its
/// service refreshes the list and runs it again (nothing of it was kept: thrown before its write committed).
public struct StaleTriggerList: Error, Sendable, Equatable {
    public let generation: Int64
}
