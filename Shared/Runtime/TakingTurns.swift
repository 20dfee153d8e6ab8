import Synchronization

/// One holder at a time across suspension points, the others waiting in the order they came: what an actor does
/// not give, since it lets others in while a method awaits. No task of its own: a waiting holder is resumed by the
/// one before it as that one ends.
public final class TakingTurns: Sendable {
    private struct State {
        var taken = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Returns once it is this caller's turn; `end()` passes it on.
    public func begin() async {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let mine = state.withLock { state in
                if state.taken {
                    state.waiting.append(turn)
                    return false
                }
                state.taken = true
                return true
            }
            if mine { turn.resume() }
        }
    }

    public func end() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            // The turn passes to the first waiting, still taken.
            guard !state.waiting.isEmpty else {
                state.taken = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }

    /// How many wait for their turn.
    public var waitingCount: Int { state.withLock { $0.waiting.count } }
}
