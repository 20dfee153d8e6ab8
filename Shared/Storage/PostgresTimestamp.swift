import Foundation
import Runtime

/// Converts between `Date` and the timestamp text PostgreSQL reads and writes.
/// Written by `CivilCalendar.timestamp`, the one formatter of dates, as Parse dates and log lines are.
enum PostgresTimestamp {
    /// The milliseconds either side of 1970 written as they are (a JavaScript `Date`'s range, within PostgreSQL's):
    /// callers refuse dates beyond it, and one that slipped through is written as the range's end instead of
    /// stopping the process.
    static let milliseconds: ClosedRange<Double> = -8.64e15...8.64e15

    /// `2024-05-01T12:30:45.123Z`.
    static func format(_ date: Date) -> String {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        let bounded = value.isNaN ? 0 : min(max(value, milliseconds.lowerBound), milliseconds.upperBound)
        return CivilCalendar.timestamp(milliseconds: Int64(bounded))
    }

    /// Reads `timestamptz`/`timestamp` output in the ISO DateStyle (`2024-05-01 12:30:45.123456+02`)
    /// and the ISO 8601 form `format` writes. A value without a zone is taken as UTC.
    /// Nil for anything else, `infinity` included.
    static func parse(_ text: String) -> Date? {
        var scanner = ASCIIScanner(text)
        guard let year = scanner.number(minDigits: 4, maxDigits: 6), scanner.skip("-"),
              let month = scanner.number(minDigits: 2, maxDigits: 2), scanner.skip("-"),
              let day = scanner.number(minDigits: 2, maxDigits: 2),
              scanner.skip(" ") || scanner.skip("T"),
              let hour = scanner.number(minDigits: 2, maxDigits: 2), scanner.skip(":"),
              let minute = scanner.number(minDigits: 2, maxDigits: 2), scanner.skip(":"),
              let second = scanner.number(minDigits: 2, maxDigits: 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if scanner.skip(".") {
            var scale = 0.1
            guard scanner.peekDigit != nil else { return nil }
            while let digit = scanner.digit() {
                fraction += Double(digit) * scale
                scale /= 10
            }
        }
        var offsetSeconds: Int64 = 0
        if scanner.skip("Z") {
            offsetSeconds = 0
        } else if let sign = scanner.sign() {
            guard let hours = scanner.number(minDigits: 2, maxDigits: 2) else { return nil }
            var minutes: Int64 = 0, seconds: Int64 = 0
            if scanner.skip(":") || scanner.peekDigit != nil {
                guard let value = scanner.number(minDigits: 2, maxDigits: 2) else { return nil }
                minutes = value
                if scanner.skip(":") {
                    guard let value = scanner.number(minDigits: 2, maxDigits: 2) else { return nil }
                    seconds = value
                }
            }
            offsetSeconds = sign * (hours * 3600 + minutes * 60 + seconds)
        }
        guard scanner.isAtEnd else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }}
