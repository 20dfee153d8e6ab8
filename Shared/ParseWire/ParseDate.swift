import Foundation
import Runtime

/// Parse dates on the wire: UTC, exactly three fractional digits, literal `Z` (`2026-11-30T14:02:51.492Z`).
/// The Swift SDK refuses any other form.
///
/// Both directions use the proleptic Gregorian calendar, as PostgreSQL and JavaScript do. Foundation's ISO 8601
/// parser switches to the Julian calendar before 1582-10-15, which moved such dates by days on their way in.
public enum ParseDate {
    /// The dates PostgreSQL stores in ISO form and JavaScript prints with four-digit years: 0001-01-01 to
    /// 9999-12-31.
    public static let years: ClosedRange<Int64> = 1...9999

    /// The milliseconds either side of 1970 a JavaScript `Date` can hold (100,000,000 days).
    public static let javaScriptRange: ClosedRange<Double> = -8.64e15...8.64e15

    /// A date beyond JavaScript's range is written as the end of that range: callers check what a client sent
    /// (`javaScriptRange`), and a date that slipped through must not stop the process.
    public static func string(from date: Date) -> String {
        // Nearest millisecond: a parsed date can sit a hair below its written value.
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let bounded = milliseconds.isNaN ? 0 : min(max(milliseconds, javaScriptRange.lowerBound), javaScriptRange.upperBound)
        return CivilCalendar.timestamp(milliseconds: Int64(bounded))
    }

    /// Reads ISO 8601 as parse-server takes it from clients: `YYYY-MM-DDTHH:MM:SS`, optional fraction (cut to
    /// milliseconds, as a JavaScript `Date` keeps them), `Z` or a `+HH:MM`/`+HHMM`/`+HH` offset (none: UTC).
    /// Nil for anything else, an impossible day (February 30th) or a year outside `years`.
    public static func date(from text: String) -> Date? {
        guard let millis = milliseconds(from: text) else { return nil }
        return Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    /// Milliseconds since 1970 for `text`, exact: no floating point on the way.
    public static func milliseconds(from text: String) -> Int64? {
        var scanner = ASCIIScanner(text)
        guard let year = scanner.number(digits: 4), scanner.skip("-"), let month = scanner.number(digits: 2),
              scanner.skip("-"), let day = scanner.number(digits: 2), scanner.skip("T"),
              let hour = scanner.number(digits: 2), scanner.skip(":"), let minute = scanner.number(digits: 2),
              scanner.skip(":"), let second = scanner.number(digits: 2)
        else { return nil }
        var millis: Int64 = 0
        if scanner.skip(".") {
            var digits = 0
            while let digit = scanner.digit() {
                if digits < 3 { millis = millis * 10 + digit }
                digits += 1
            }
            guard digits > 0 else { return nil }
            for _ in min(digits, 3)..<3 { millis *= 10 }
        }
        var offsetMinutes: Int64 = 0
        if !scanner.skip("Z") {
            if let sign = scanner.sign() {
                guard let hours = scanner.number(digits: 2), hours < 24 else { return nil }
                var minutes: Int64 = 0
                if scanner.skip(":") || !scanner.isAtEnd {
                    guard let value = scanner.number(digits: 2), value < 60 else { return nil }
                    minutes = value
                }
                offsetMinutes = sign * (hours * 60 + minutes)
            }
        }
        guard scanner.isAtEnd, years.contains(year), (1...12).contains(month),
              (1...CivilCalendar.daysIn(month: month, year: year)).contains(day), minute < 60, second < 60,
              hour < 24 || hour == 24 && minute == 0 && second == 0 && millis == 0
        else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        return seconds * 1000 + millis
    }
}
