import Testing
import Runtime
@testable import Messaging

/// Headers of a delivery are whatever its sender wrote: a number in them must not make the arithmetic on it trap.
@Suite struct DeliveryHeadersUnitTests {
    @Test func attemptsCountFromTheHeader() {
        #expect(DeliveryAttempts.current([:], key: "x-attempts", limit: 5) == 1)
        #expect(DeliveryAttempts.current(["x-attempts": "2"], key: "x-attempts", limit: 5) == 3)
        #expect(DeliveryAttempts.current(["x-attempts": "4"], key: "x-attempts", limit: 5) == 5)
    }

    @Test(arguments: ["9223372036854775807", "-9223372036854775808", "-1", "5", "99", "x", ""])
    func anAttemptsHeaderOutsideTheLimitCountsAsTriedEnough(header: String) {
        #expect(DeliveryAttempts.current(["x-attempts": header], key: "x-attempts", limit: 5) == 5)
    }

    @Test func deadlinesAtTheEdgesOfAnIntAreReadWithoutOverflow() throws {
        let past = try #require(CommandDeadline.forHandling([CommandDeadline.deadlineHeader: String(Int.min)]))
        #expect(past.hasPassed)
        let far = try #require(CommandDeadline.forHandling([CommandDeadline.deadlineHeader: String(Int.max),
                                                            CommandDeadline.timeoutHeader: String(Int.max)]))
        #expect(!far.hasPassed)
        let negative = try #require(CommandDeadline.forHandling([CommandDeadline.timeoutHeader: String(Int.min)]))
        #expect(negative.hasPassed)
    }

    @Test func aDeadlineOfTheMostNegativeDurationHasPassed() {
        #expect(Deadline.after(.nanoseconds(Int64.min)).hasPassed)
        #expect(Deadline.after(.seconds(Int64.min)).hasPassed)
    }
}
