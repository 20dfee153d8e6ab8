import Foundation
import Testing
@testable import ParseWire

@Suite struct ParseDateTests {
    /// 2026-11-30T14:02:51.492Z, built from whole milliseconds so the test does not depend on how a decimal
    /// literal rounds to binary.
    static let known = Date(timeIntervalSince1970: TimeInterval(1_796_047_371_492) / 1000)

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

    @Test(arguments: ["", "not a date", "2026-13-01T00:00:00.000Z"])
    func rejectsWhatIsNotADate(text: String) {
        #expect(ParseDate.date(from: text) == nil)
    }

    @Test
    func formatsDatesBefore1970() throws {
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        let parsed = try #require(ParseDate.date(from: "1960-05-01T10:20:30.250Z"))
        #expect(ParseDate.string(from: parsed) == "1960-05-01T10:20:30.250Z")
    }
}
