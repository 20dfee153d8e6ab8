/// The calls waiting for a reply over direct reply-to, by correlation id. Owned by the connection thread: a
/// reply takes its call out, a sweep takes out those past their deadline, and a lost connection takes out all.
struct RPCCallTable<Waiter> {
    struct Call {
        let waiter: Waiter
        /// In the clock of `expire(now:)` (the connection uses uptime nanoseconds).
        let deadline: UInt64
        /// For the timeout's error and metric.
        let queue: String
        let milliseconds: Int
    }

    private var calls: [String: Call] = [:]

    var isEmpty: Bool { calls.isEmpty }
    var count: Int { calls.count }

    mutating func register(_ call: Call, correlationId: String) {
        calls[correlationId] = call
    }

    /// The call a reply answers; nil for a reply whose call already timed out (or was never made here).
    mutating func reply(correlationId: String?) -> Call? {
        guard let correlationId else { return nil }
        return calls.removeValue(forKey: correlationId)
    }

    mutating func expire(now: UInt64) -> [Call] {
        guard !calls.isEmpty else { return [] }
        let ids = calls.filter { $0.value.deadline <= now }.map(\.key)
        return ids.compactMap { calls.removeValue(forKey: $0) }
    }

    mutating func removeAll() -> [Call] {
        defer { calls = [:] }
        return Array(calls.values)
    }
}

extension RPCCallTable.Call: Sendable where Waiter: Sendable {}
