import Foundation
import Testing
@testable import ParseWire
import Runtime

@Suite struct ParseDateTests {
    /// 2026-11-30T14:02:51.492Z, built from whole milliseconds so the test does not depend on how a decimal
    /// literal rounds to binary.
    static let known = Date(timeIntervalSince1970: TimeInterval(1_796_047_371_492) / 1000)

    @Test func datesBeyondJavaScriptsRangeAreWrittenAtItsEnd() {
        let latest = ParseDate.string(from: Date(timeIntervalSince1970: 8.64e12))
        let earliest = ParseDate.string(from: Date(timeIntervalSince1970: -8.64e12))
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: 1e300)) == latest)
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: -1e300)) == earliest)
        #expect(ParseDate.string(from: .distantFuture) != latest)
    }

    @Test func formatsWithThreeFractionalDigitsAndZ() {
        #expect(ParseDate.string(from: Self.known) == "2026-11-30T14:02:51.492Z")
    }

    @Test func padsSmallFieldsAndFractions() {
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: 946_684_799.005)) == "1999-12-31T23:59:59.005Z")
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: 1_000_000_000.05)) == "2001-09-09T01:46:40.050Z")
    }

    @Test func roundsToTheNearestMillisecond() {
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: 12.9996)) == "1970-01-01T00:00:13.000Z")
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: 12.9992)) == "1970-01-01T00:00:12.999Z")
    }

    @Test func alwaysHasTheSDKShape() throws {
        let shape = try Regex(#"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#)
        for seconds in stride(from: 0.0, to: 4_000_000_000.0, by: 123_456_789.123) {
            let text = ParseDate.string(from: Date(timeIntervalSince1970: seconds))
            #expect(text.wholeMatch(of: shape) != nil, "\(text)")
        }
    }

    @Test func parsesTheWireForm() throws {
        let parsed = try #require(ParseDate.date(from: "2026-11-30T14:02:51.492Z"))
        #expect(abs(parsed.timeIntervalSince(Self.known)) < 0.0005)
    }

    @Test(arguments: [
        "2026-11-30T14:02:51.492Z", "1970-01-01T00:00:00.000Z", "1999-12-31T23:59:59.999Z",
        "2000-02-29T12:00:00.001Z", "2038-01-19T03:14:08.500Z",
    ])
    func roundTripsThroughText(text: String) throws {
        let parsed = try #require(ParseDate.date(from: text))
        #expect(ParseDate.string(from: parsed) == text)
    }

    @Test
    func everyMillisecondRoundTripsThroughText() throws {
        for millisecond in 0..<1000 {
            let text = "2026-11-30T14:02:51." + String(1000 + millisecond).dropFirst() + "Z"
            let parsed = try #require(ParseDate.date(from: text))
            #expect(ParseDate.string(from: parsed) == text)
        }
    }

    @Test func roundTripsThroughDate() throws {
        let parsed = try #require(ParseDate.date(from: ParseDate.string(from: Self.known)))
        #expect(abs(parsed.timeIntervalSince(Self.known)) < 0.0005)
    }

    @Test(arguments: ["", "not a date", "2026-13-01T00:00:00.000Z", "2026-02-29T00:00:00.000Z",
                      "1900-02-29T00:00:00.000Z", "0000-01-01T00:00:00.000Z", "2026-01-01T25:00:00.000Z",
                      "2026-01-01T00:60:00.000Z", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00.000Zjunk",
                      "+010000-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000+25:00"])
    func rejectsWhatIsNotADate(text: String) {
        #expect(ParseDate.date(from: text) == nil)
    }

    @Test
    func formatsDatesBefore1970() throws {
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        let parsed = try #require(ParseDate.date(from: "1960-05-01T10:20:30.250Z"))
        #expect(ParseDate.string(from: parsed) == "1960-05-01T10:20:30.250Z")
    }

    /// Dates before the Gregorian reform are proleptic Gregorian, as in PostgreSQL and JavaScript
    /// (`Date.UTC(1500, 2, 1, 12)`): Foundation's ISO 8601 parser read them in the Julian calendar.
    @Test(arguments: [
        ("0001-01-01T00:00:00.000Z", Int64(-62_135_596_800_000)), ("1000-01-01T00:00:00.000Z", -30_610_224_000_000),
        ("1500-03-01T12:00:00.000Z", -14_826_628_800_000), ("1582-10-04T00:00:00.000Z", -12_220_243_200_000),
        ("1582-10-15T00:00:00.000Z", -12_219_292_800_000), ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
    ])
    func oldDatesAreProlepticGregorian(text: String, millis: Int64) throws {
        #expect(ParseDate.milliseconds(from: text) == millis)
        let date = try #require(ParseDate.date(from: text))
        #expect(ParseDate.string(from: date) == text)
    }

    @Test func readsTheOtherFormsClientsSend() {
        #expect(ParseDate.milliseconds(from: "2020-01-01T00:00:00Z") == 1_577_836_800_000)
        #expect(ParseDate.milliseconds(from: "2020-01-01T00:00:00.1Z") == 1_577_836_800_100)
        // Beyond milliseconds the digits are cut, as a JavaScript Date keeps them.
        #expect(ParseDate.milliseconds(from: "2020-01-01T00:00:00.123999Z") == 1_577_836_800_123)
        #expect(ParseDate.milliseconds(from: "2020-01-01T01:30:00.000+01:30") == 1_577_836_800_000)
        #expect(ParseDate.milliseconds(from: "2020-01-01T01:00:00.000+0100") == 1_577_836_800_000)
        #expect(ParseDate.milliseconds(from: "2019-12-31T23:00:00.000-01") == 1_577_836_800_000)
        #expect(ParseDate.milliseconds(from: "2020-01-01T00:00:00.000") == 1_577_836_800_000)
        #expect(ParseDate.milliseconds(from: "2019-12-31T24:00:00.000Z") == 1_577_836_800_000)
    }

    /// Every millisecond of 0001-01-01 to 9999-12-31 that comes up, written and read back, is the same instant
    /// and the same text; the text's fields say what a calendar says they are.
    @Test func randomDatesOverTheWholeRangeRoundTrip() throws {
        var random = SplitMix64(seed: 20_261_201)
        let first = ParseDate.milliseconds(from: "0001-01-01T00:00:00.000Z")!
        let last = ParseDate.milliseconds(from: "9999-12-31T23:59:59.999Z")!
        for _ in 0..<20_000 {
            let millis = Int64.random(in: first...last, using: &random)
            let text = ParseDate.string(from: Date(timeIntervalSince1970: Double(millis) / 1000))
            #expect(ParseDate.milliseconds(from: text) == millis, "\(millis) -> \(text)")
        }
    }

    /// Day by day across the reform and around the ends of the range: consecutive days are 86,400,000 ms
    /// apart and print as consecutive calendar days.
    @Test func consecutiveDaysAreOneDayApart() throws {
        for start in ["0001-01-01", "1582-09-01", "1699-12-25", "1899-12-25", "9999-11-01"] {
            var millis = try #require(ParseDate.milliseconds(from: start + "T00:00:00.000Z"))
            var text = start
            for _ in 0..<60 {
                let next = ParseDate.string(from: Date(timeIntervalSince1970: Double(millis + 86_400_000) / 1000))
                #expect(Self.dayAfter(text) == String(next.prefix(10)), "after \(text)")
                millis += 86_400_000
                text = String(next.prefix(10))
            }
        }
    }

    /// The calendar day after `YYYY-MM-DD`, counted with the Gregorian leap rule only.
    static func dayAfter(_ text: String) -> String {
        let parts = text.split(separator: "-").map { Int($0)! }
        var (year, month, day) = (parts[0], parts[1], parts[2])
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        day += 1
        if day > lengths[month - 1] { day = 1; month += 1 }
        if month > 12 { month = 1; year += 1 }
        return String(format: "%04d-%02d-%02d", year, month, day)
    }
}

@Suite struct CivilTimestampTests {
    /// The one date writer gives what `printf` gave with the calendar's fields, before 1970 and after.
    @Test func theTimestampIsWhatPrintfWrote() {
        var generator = SystemRandomNumberGenerator()
        let samples: [Int64] = [0, -1, 999, -62_135_596_800_000, 253_402_300_799_999, 1_780_000_000_250]
            + (0..<500).map { _ in Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator) }
        for millis in samples {
            let (seconds, fraction) = CivilCalendar.floorDivide(millis, 1000)
            let (days, secondOfDay) = CivilCalendar.floorDivide(seconds, 86_400)
            let (year, month, day) = CivilCalendar.date(fromDays: days)
            let expected = String(format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ", year, month, day,
                                  secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60, fraction)
            #expect(CivilCalendar.timestamp(milliseconds: millis) == expected)
        }
    }
}
