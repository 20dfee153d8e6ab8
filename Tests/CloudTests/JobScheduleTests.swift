import Foundation
import ParseWire
import Testing
@testable import CloudCore

/// When a `_JobSchedule` is due, and the `job_schedule` bodies it is made from.
@Suite struct JobScheduleTests {
    /// 2026-12-07 is a Monday.
    static let monday = ISODate.parse("2026-12-07T00:00:00.000Z")!

    static func at(_ text: String) -> Date { ISODate.parse(text)! }

    static func schedule(_ fields: [String: JSONValue], lastRun: Date? = nil) throws -> JobSchedule {
        try JobSchedule(body: .object(fields.merging(["jobName": .string("cleanup")]) { $1 }), objectId: "s1",
                        lastRun: lastRun.map { $0.timeIntervalSince1970 * 1000 }, now: monday)
    }

    @Test func withoutARepeatItRunsOnceAtItsStart() throws {
        let once = try Self.schedule(["startAfter": .string("2026-12-07T10:00:00.000Z")])
        #expect(once.due(at: Self.at("2026-12-07T09:59:59.000Z")) == nil)
        #expect(once.due(at: Self.at("2026-12-07T10:00:01.000Z")) == Self.at("2026-12-07T10:00:00.000Z"))
        let ran = try Self.schedule(["startAfter": .string("2026-12-07T10:00:00.000Z")], lastRun: Self.at("2026-12-07T10:00:00.000Z"))
        #expect(ran.due(at: Self.at("2026-12-09T10:00:00.000Z")) == nil)
    }

    @Test func aScheduleWithoutAStartStartsWhenItIsMade() throws {
        #expect(try Self.schedule([:]).due(at: Self.monday) == Self.monday)
    }

    @Test func anIntervalCountsFromTheLastRunAndAMissedStretchRunsOnce() throws {
        let every = try Self.schedule(["startAfter": .string("2026-12-07T10:00:00.000Z"), "repeatMinutes": .number(15)],
                                      lastRun: Self.at("2026-12-07T10:00:00.000Z"))
        #expect(every.due(at: Self.at("2026-12-07T10:14:00.000Z")) == nil)
        #expect(every.due(at: Self.at("2026-12-07T10:15:00.000Z")) == Self.at("2026-12-07T10:15:00.000Z"))
        // Down for an hour: one run when back, the next 15 minutes after it.
        #expect(every.due(at: Self.at("2026-12-07T11:20:00.000Z")) == Self.at("2026-12-07T10:15:00.000Z"))
    }

    @Test func aTimeOfDayRunsDailyOnItsDaysFromTheStart() throws {
        let daily = try Self.schedule(["startAfter": .string("2026-12-07T12:00:00.000Z"), "timeOfDay": .string("09:30:00.000Z")])
        // Monday's 09:30 was before the start: the first run is Tuesday's.
        #expect(daily.due(at: Self.at("2026-12-07T23:00:00.000Z")) == nil)
        #expect(daily.due(at: Self.at("2026-12-08T09:31:00.000Z")) == Self.at("2026-12-08T09:30:00.000Z"))
        let ranTuesday = try Self.schedule(["startAfter": .string("2026-12-07T12:00:00.000Z"), "timeOfDay": .string("09:30:00.000Z")],
                                           lastRun: Self.at("2026-12-08T09:30:00.000Z"))
        #expect(ranTuesday.due(at: Self.at("2026-12-09T09:00:00.000Z")) == nil)
        #expect(ranTuesday.due(at: Self.at("2026-12-09T09:30:00.000Z")) == Self.at("2026-12-09T09:30:00.000Z"))
        // Only on Sundays (0) and Wednesdays (3).
        let someDays = try Self.schedule(["startAfter": .string("2026-12-07T00:00:00.000Z"), "timeOfDay": .string("09:30"),
                                          "daysOfWeek": .array([.number(0), .number(3)])])
        #expect(someDays.due(at: Self.at("2026-12-08T12:00:00.000Z")) == nil)
        #expect(someDays.due(at: Self.at("2026-12-09T12:00:00.000Z")) == Self.at("2026-12-09T09:30:00.000Z"))
        #expect(someDays.due(at: Self.at("2026-12-12T12:00:00.000Z")) == Self.at("2026-12-09T09:30:00.000Z"))
    }

    @Test func anIntervalWithATimeOfDayStartsAtThatTime() throws {
        let hourly = try Self.schedule(["startAfter": .string("2026-12-07T08:00:00.000Z"), "timeOfDay": .string("10:00:00.000Z"),
                                        "repeatMinutes": .number(60)])
        #expect(hourly.due(at: Self.at("2026-12-07T09:00:00.000Z")) == nil)
        #expect(hourly.due(at: Self.at("2026-12-07T10:00:00.000Z")) == Self.at("2026-12-07T10:00:00.000Z"))
    }

    @Test(arguments: [
        ["jobName": .number(3)], ["params": .string("not json")], ["startAfter": .string("yesterday")], ["timeOfDay": .string("25:00")],
        ["timeOfDay": .string("9:30")], ["daysOfWeek": .array([.number(7)])], ["daysOfWeek": .string("Monday")], ["repeatMinutes": .number(-5)],
        ["repeatMinutes": .string("often")], ["description": .array([.string("a")])],
    ] as [[String: JSONValue]])
    func aBadBodyIsRefusedWithItsField(_ fields: [String: JSONValue]) {
        let error = #expect(throws: ParseError.self) {
            _ = try JobSchedule(body: .object(["jobName": .string("cleanup")].merging(fields) { $1 }), objectId: "s1", lastRun: nil,
                                now: Self.monday)
        }
        #expect(error?.code == .invalidJSON)
        #expect(error?.message.hasPrefix("job_schedule.") == true)
    }

    @Test func theAnswerKeepsParseServersShape() throws {
        let schedule = try Self.schedule(["startAfter": .string("2026-12-07T08:00:00Z"), "timeOfDay": .string("10:05"), "params": .string("{\"a\":1}"),
                                          "daysOfWeek": .array([.string("1"), .string("2")]), "repeatMinutes": .number(30), "description": .string("tidy up")])
        #expect(schedule.json == ["objectId": .string("s1"), "jobName": .string("cleanup"), "startAfter": .string("2026-12-07T08:00:00.000Z"),
                                  "timeOfDay": .string("10:05:00.000Z"), "params": .string("{\"a\":1}"), "daysOfWeek": .array([.number(1), .number(2)]),
                                  "repeatMinutes": .number(30), "description": .string("tidy up")])
    }
}
