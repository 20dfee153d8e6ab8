import Testing
@testable import Metrics

@Suite struct ChildCacheTests {
    @Test func aSlotResolvesItsChildOnceAndCountsIntoTheFamilysSeries() {
        let registry = MetricsRegistry()
        let family = registry.counter("demo_slot", help: "Slot.", labels: ["route"])
        let slot = ChildSlot<Counter>()
        var resolved = 0
        for _ in 0..<3 {
            slot.child {
                resolved += 1
                return family.labels("a")
            }.increment()
        }
        #expect(resolved == 1)
        #expect(family.labels("a").value == 3)
    }

    @Test func aSlotLeavesNoSeriesUntilUsed() {
        let registry = MetricsRegistry()
        let family = registry.counter("demo_unused", help: "Unused.", labels: ["route"])
        _ = ChildSlot<Counter>()
        #expect(family.children().isEmpty)
        #expect(!registry.exposition().contains("demo_unused_total{"))
    }

    @Test func keyedChildrenKeepEachKeyApartAndMoreKeysThanSlotsStillCount() {
        let registry = MetricsRegistry()
        let family = registry.counter("demo_status", help: "Statuses.", labels: ["status"])
        let children = KeyedChildren<Counter>(slots: 2)
        for status in [200, 404, 200, 500, 503, 500, 200] {
            children.child(status) { family.labels(String($0)) }.increment()
        }
        #expect(family.labels("200").value == 3)
        #expect(family.labels("404").value == 1)
        #expect(family.labels("500").value == 2)
        #expect(family.labels("503").value == 1)
    }

    @Test func slotsRacedByManyTasksCountEveryUpdate() async {
        let registry = MetricsRegistry()
        let family = registry.counter("demo_race", help: "Race.", labels: ["status"])
        let slot = ChildSlot<Counter>()
        let children = KeyedChildren<Counter>(slots: 4)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<1_000 {
                        slot.child { family.labels("slot") }.increment()
                        children.child((task + index) % 6) { family.labels(String($0)) }.increment()
                    }
                }
            }
        }
        #expect(family.labels("slot").value == 8_000)
        #expect((0..<6).map { family.labels(String($0)).value }.reduce(0, +) == 8_000)
    }
}
