import Testing
@testable import Messaging

@Suite struct UnsettledDeliveriesUnitTests {
    private func delivered(_ tags: ClosedRange<UInt64>) -> UnsettledDeliveries {
        var unsettled = UnsettledDeliveries()
        for tag in tags { unsettled.delivered(tag) }
        return unsettled
    }

    @Test func theOldestAckedTogetherGoAsOneMultipleAck() {
        var unsettled = delivered(1...5)
        let acks = unsettled.acks(for: [3, 1, 2])
        #expect(acks.upTo == 3 && acks.single.isEmpty)
        #expect(unsettled.count == 2)
        let rest = unsettled.acks(for: [5, 4])
        #expect(rest.upTo == 5 && rest.single.isEmpty && unsettled.count == 0)
    }

    @Test func acksBehindAnUnsettledDeliveryGoOneByOne() {
        var unsettled = delivered(1...5)
        let acks = unsettled.acks(for: [2, 4])
        #expect(acks.upTo == nil && acks.single == [2, 4])
        #expect(unsettled.count == 3)
        // 1 settles the front; 3 still waits, so 5 cannot be covered by the multiple ack.
        let next = unsettled.acks(for: [1, 5])
        #expect(next.upTo == nil && next.single == [1, 5])
        #expect(unsettled.acks(for: [3]).single == [3] && unsettled.count == 0)
    }

    @Test func aRejectedDeliveryNoLongerHoldsTheFront() {
        var unsettled = delivered(1...4)
        unsettled.settled(1)
        let acks = unsettled.acks(for: [2, 3])
        #expect(acks.upTo == 3 && acks.single.isEmpty && unsettled.count == 1)
    }

    @Test func unknownTagsAreAckedAsAsked() {
        var unsettled = delivered(1...2)
        let acks = unsettled.acks(for: [1, 2, 9])
        #expect(acks.upTo == 2 && acks.single == [9])
        unsettled.reset()
        #expect(unsettled.count == 0)
    }
}
