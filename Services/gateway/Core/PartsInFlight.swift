/// The calls of one file transfer under way, oldest first: several parts travel at once, each in its own task,
/// and their results are taken in the order they were started.
struct PartsInFlight<Value: Sendable> {
    private var tasks: [Task<Value, any Error>] = []

    var count: Int { tasks.count }

    mutating func add(_ work: @escaping @Sendable () async throws -> Value) {
        tasks.append(Task(operation: work))
    }

    /// The oldest call's result (nil when none is in flight); its failure is thrown, the others stay in flight.
    @discardableResult
    mutating func takeOldest() async throws -> Value? {
        guard !tasks.isEmpty else { return nil }
        return try await tasks.removeFirst().value
    }

    /// Cancels what is left and waits for it, whatever its outcome, so nothing of the transfer runs on after it.
    mutating func settle() async {
        for task in tasks {
            task.cancel()
            _ = try? await task.value
        }
        tasks = []
    }
}
