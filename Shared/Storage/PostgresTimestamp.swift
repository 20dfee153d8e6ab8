import Foundation
import Runtime

/// Converts between `Date` and the timestamp text PostgreSQL reads and writes.
/// Done by hand on integers: it is exact to the millisecond and needs no shared formatter.
enum PostgresTimestamp {
    /// `2024-05-01T12:30:45.123Z`.
    static func format(_ date: Date) -> String {
        let totalMillis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, millis) = floorDivide(totalMillis, 1000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = CivilCalendar.date(fromDays: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
            + "." + pad(millis, 3) + "Z"
    }

    /// Reads `timestamptz`/`timestamp` output in the ISO DateStyle (`2024-05-01 12:30:45.123456+02`)
    /// and the ISO 8601 form `format` writes. A value without a zone is taken as UTC.
    /// Nil for anything else, `infinity` included.
    static func parse(_ text: String) -> Date? {
        var scanner = DigitScanner(Array(text.utf8))
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
            while let digit = scanner.nextDigit() {
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
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = ((value % divisor) + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}

/// A cursor over ASCII bytes for the timestamp parser.
private struct DigitScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    var peekDigit: Int64? {
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
        return Int64(bytes[index] - UInt8(ascii: "0"))
    }

    mutating func nextDigit() -> Int64? {
        guard let digit = peekDigit else { return nil }
        index += 1
        return digit
    }

    mutating func number(minDigits: Int, maxDigits: Int) -> Int64? {
        var value: Int64 = 0, count = 0
        while count < maxDigits, let digit = nextDigit() {
            value = value * 10 + digit
            count += 1
        }
        return count >= minDigits ? value : nil
    }

    mutating func skip(_ character: Character) -> Bool {
        guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int64? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
