import Runtime
import Synchronization
import Testing

/// `TakingTurns`, which keeps a script log flush from returning while the one before it still ships lines.
struct TakingTurnsTests {
    @Test func eachWaitsForTheOneBeforeItAndTheyGoInTheOrderTheyCame() async throws {
        let turns = TakingTurns()
        let order = Order()
        await turns.begin()
        var holders: [Task<Void, Never>] = []
        for index in 1...3 {
            holders.append(Task {
                await turns.begin()
                order.append(index)
                turns.end()
            })
            // Queued one after the other, so the order they came in is known.
            try await Self.waitUntil { turns.waitingCount == index }
        }
        #expect(order.values.isEmpty, "a holder went while the first held its turn")
        turns.end()
        for holder in holders { await holder.value }
        #expect(order.values == [1, 2, 3])
        #expect(turns.waitingCount == 0)
    }

    @Test func aTurnEndedWithNobodyWaitingIsFreeForTheNext() async {
        let turns = TakingTurns()
        await turns.begin()
        turns.end()
        await turns.begin()
        #expect(turns.waitingCount == 0)
        turns.end()
    }

    private final class Order: Sendable {
        private let recorded = Mutex<[Int]>([])
        func append(_ index: Int) { recorded.withLock { $0.append(index) } }
        var values: [Int] { recorded.withLock { $0 } }
    }

    private static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<3_000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }
}
