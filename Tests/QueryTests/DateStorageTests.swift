import Foundation
import ParseWire
import Runtime
import Testing
@testable import Query
@testable import Storage

/// A Date on its whole way: the client's text, the value bound for PostgreSQL, PostgreSQL's output read back, the
/// text answered. Both sides must use the same calendar, or dates before 1582-10-15 move by days.
struct DateStorageTests {
    static func roundTrip(_ text: String) throws {
        let date = try ValueStorage.date(.object(["__type": .string("Date"), "iso": .string(text)]))
        var parameters = SQLParameters()
        let sql = try ValueStorage.sql(.object(["__type": .string("Date"), "iso": .string(text)]), FieldType(.date), &parameters)
        #expect(sql == "$1::timestamptz")
        #expect(parameters.values.first??.postgresText == text)
        // PostgreSQL prints `2024-05-31 16:08:37.123+00` in the ISO DateStyle.
        let output = text.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "+00")
        let read = try #require(PostgresTimestamp.parse(output))
        #expect(ParseDate.string(from: read) == text)
        #expect(ParseDate.string(from: date) == text)
    }

    @Test(arguments: ["0001-01-01T00:00:00.000Z", "1000-01-01T00:00:00.000Z", "1500-03-01T12:00:00.000Z",
                      "1582-10-04T23:59:59.999Z", "1582-10-15T00:00:00.000Z", "1969-12-31T23:59:59.999Z",
                      "2026-12-01T14:30:00.123Z", "9999-12-31T23:59:59.999Z"])
    func namedDatesRoundTrip(text: String) throws {
        try Self.roundTrip(text)
    }

    @Test func generatedDatesOverTheWholeRangeRoundTrip() throws {
        var random = SplitMix64(seed: 1_582_10_15)
        let first = try #require(ParseDate.milliseconds(from: "0001-01-01T00:00:00.000Z"))
        let last = try #require(ParseDate.milliseconds(from: "9999-12-31T23:59:59.999Z"))
        for _ in 0..<5_000 {
            let millis = Int64.random(in: first...last, using: &random)
            try Self.roundTrip(ParseDate.string(from: Date(timeIntervalSince1970: Double(millis) / 1000)))
        }
    }

    @Test func aYearPostgreSQLCannotStoreIsNotADate() {
        #expect(throws: ParseError.self) { try ValueStorage.date(.string("0000-12-31T00:00:00.000Z")) }
    }
}
