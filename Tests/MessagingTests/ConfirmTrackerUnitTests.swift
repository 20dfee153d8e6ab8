import Testing
@testable import Messaging

@Suite struct ConfirmTrackerUnitTests {
    private typealias Settled = [(waiter: String, refused: Bool)]

    private func names(_ settled: Settled) -> [String] { settled.map(\.waiter) }

    @Test func tagsStartAtOneAndCountMessages() {
        var tracker = ConfirmTracker<String>()
        #expect(tracker.nextTag == 1)
        #expect(tracker.isEmpty)
        tracker.published(count: 1, waiter: "a")
        tracker.published(count: 3, waiter: "b")
        #expect(tracker.nextTag == 5)
        #expect(!tracker.isEmpty)
    }

    @Test func singleAcksSettleTheirWaiter() {
        var tracker = ConfirmTracker<String>()
        tracker.published(count: 1, waiter: "a")
        tracker.published(count: 1, waiter: "b")
        let first = tracker.settle(tag: 1, multiple: false, negative: false)
        #expect(names(first) == ["a"])
        #expect(first.first?.refused == false)
        #expect(!tracker.isEmpty)
        #expect(names(tracker.settle(tag: 2, multiple: false, negative: false)) == ["b"])
        #expect(tracker.isEmpty)
    }

    @Test func multipleAckSettlesEverythingUpToTheTag() {
        var tracker = ConfirmTracker<String>()
        for name in ["a", "b", "c"] { tracker.published(count: 1, waiter: name) }
        let settled = tracker.settle(tag: 2, multiple: true, negative: false)
        #expect(names(settled) == ["a", "b"])
        #expect(settled.allSatisfy { !$0.refused })
        #expect(!tracker.isEmpty)
        #expect(names(tracker.settle(tag: 3, multiple: true, negative: false)) == ["c"])
        #expect(tracker.isEmpty)
    }

    @Test func nackMarksTheWaiterRefused() {
        var tracker = ConfirmTracker<String>()
        tracker.published(count: 1, waiter: "a")
        tracker.published(count: 1, waiter: "b")
        let settled = tracker.settle(tag: 1, multiple: false, negative: true)
        #expect(names(settled) == ["a"])
        #expect(settled.first?.refused == true)
        let next = tracker.settle(tag: 2, multiple: false, negative: false)
        #expect(next.first?.refused == false)
    }

    @Test func multipleNackRefusesOnlyTheWaitersItCovers() {
        var tracker = ConfirmTracker<String>()
        for name in ["a", "b", "c"] { tracker.published(count: 1, waiter: name) }
        let settled = tracker.settle(tag: 2, multiple: true, negative: true)
        #expect(names(settled) == ["a", "b"])
        #expect(settled.allSatisfy { $0.refused })
        let last = tracker.settle(tag: 3, multiple: false, negative: false)
        #expect(last.first?.refused == false)
    }

    @Test func batchSettlesOnlyWhenAllItsTagsAre() {
        var tracker = ConfirmTracker<String>()
        tracker.published(count: 3, waiter: "batch")
        #expect(tracker.settle(tag: 1, multiple: false, negative: false).isEmpty)
        #expect(tracker.settle(tag: 3, multiple: false, negative: false).isEmpty)
        let settled = tracker.settle(tag: 2, multiple: false, negative: false)
        #expect(names(settled) == ["batch"])
        #expect(settled.first?.refused == false)
        #expect(tracker.isEmpty)
    }

    @Test func oneNackInABatchRefusesTheBatch() {
        var tracker = ConfirmTracker<String>()
        tracker.published(count: 3, waiter: "batch")
        #expect(tracker.settle(tag: 2, multiple: false, negative: true).isEmpty)
        #expect(tracker.settle(tag: 1, multiple: false, negative: false).isEmpty)
        let settled = tracker.settle(tag: 3, multiple: false, negative: false)
        #expect(settled.first?.refused == true)
    }

    @Test func multipleAckCanSettleABatchPartly() {
        var tracker = ConfirmTracker<String>()
        tracker.published(count: 1, waiter: "single")
        tracker.published(count: 3, waiter: "batch")   // tags 2...4
        #expect(names(tracker.settle(tag: 3, multiple: true, negative: false)) == ["single"])
        #expect(names(tracker.settle(tag: 4, multiple: false, negative: false)) == ["batch"])
    }

    @Test func singlesMaySettleOutOfOrder() {
        var tracker = ConfirmTracker<String>()
        for name in ["a", "b", "c"] { tracker.published(count: 1, waiter: name) }
        #expect(names(tracker.settle(tag: 3, multiple: false, negative: false)) == ["c"])
        #expect(names(tracker.settle(tag: 1, multiple: false, negative: false)) == ["a"])
        #expect(names(tracker.settle(tag: 2, multiple: false, negative: false)) == ["b"])
        #expect(tracker.isEmpty)
    }

    @Test func unknownOrRepeatedTagsSettleNothing() {
        var tracker = ConfirmTracker<String>()
        tracker.published(count: 1, waiter: "a")
        #expect(tracker.settle(tag: 9, multiple: false, negative: false).isEmpty)
        #expect(names(tracker.settle(tag: 1, multiple: false, negative: false)) == ["a"])
        #expect(tracker.settle(tag: 1, multiple: false, negative: false).isEmpty)
    }

    @Test func resetReturnsUnsettledWaitersAndRestartsTags() {
        var tracker = ConfirmTracker<String>()
        tracker.published(count: 1, waiter: "a")
        tracker.published(count: 2, waiter: "b")
        tracker.published(count: 1, waiter: "c")
        #expect(names(tracker.settle(tag: 1, multiple: false, negative: false)) == ["a"])
        #expect(tracker.reset() == ["b", "c"])
        #expect(tracker.isEmpty)
        #expect(tracker.nextTag == 1)
        #expect(tracker.reset().isEmpty)

        tracker.published(count: 1, waiter: "d")
        #expect(tracker.nextTag == 2)
        let settled = tracker.settle(tag: 1, multiple: false, negative: false)
        #expect(names(settled) == ["d"])
    }
}
