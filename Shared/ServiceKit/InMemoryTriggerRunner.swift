import Contracts
import ParseWire
import Synchronization

/// A `CloudTriggerRunner` in memory, for tests of the services' hook points: triggers are closures registered by key,
/// and every call is recorded with the identity it ran for.
public final class InMemoryTriggerRunner: CloudTriggerRunner {
    public typealias Handler = @Sendable (RunTrigger) throws -> TriggerResult

    public struct Call: Sendable {
        public var trigger: RunTrigger
        public var identity: Identity
    }

    private struct State {
        var handlers: [TriggerKey: Handler] = [:]
        var calls: [Call] = []
        var lists = 0
        var reachable = true
        var generation: Int64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    public func register(_ name: TriggerName, _ className: String, _ handler: @escaping Handler = { _ in TriggerResult() }) {
        state.withLock {
            $0.handlers[TriggerKey(className: className, triggerName: name)] = handler
            $0.generation += 1
        }
    }

    /// The registrations' generation: one more for each `register`.
    public var generation: Int64 { state.withLock { $0.generation } }

    /// While false, every call fails as Cloud Code not answering would.
    public func setReachable(_ reachable: Bool) { state.withLock { $0.reachable = reachable } }

    public var calls: [Call] { state.withLock { $0.calls } }
    /// How many times the list of registrations was asked for.
    public var listCount: Int { state.withLock { $0.lists } }

    public func listTriggers(timeout: Duration) async throws -> TriggerRegistrations {
        try state.withLock { state in
            state.lists += 1
            guard state.reachable else { throw ParseError(TriggerFailure.scriptFailed, "Cloud Code is not reachable.") }
            return TriggerRegistrations(triggers: Array(state.handlers.keys), generation: state.generation)
        }
    }

    public func run(_ trigger: RunTrigger, requestId: String, identity: Identity, timeout: Duration) async throws -> TriggerResult {
        let handler = try state.withLock { state -> Handler? in
            guard state.reachable else { throw ParseError(TriggerFailure.scriptFailed, "Cloud Code is not reachable.") }
            state.calls.append(Call(trigger: trigger, identity: identity))
            return state.handlers[trigger.key]
        }
        guard let handler else { return TriggerResult() }
        return try handler(trigger)
    }
}
