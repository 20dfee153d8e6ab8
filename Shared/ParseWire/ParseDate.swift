import Foundation

/// Parse dates on the wire: UTC, exactly three fractional digits, literal `Z` (`2026-11-30T14:02:51.492Z`).
/// The Swift SDK refuses any other form.
public enum ParseDate {
    public static func string(from date: Date) -> String {
        // Nearest millisecond: a parsed date can sit a hair below its written value.
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        // Floor division, so dates before 1970 get a positive fraction.
        let (quotient, remainder) = millis.quotientAndRemainder(dividingBy: 1000)
        var seconds = time_t(remainder < 0 ? quotient - 1 : quotient)
        let fraction = Int(remainder < 0 ? remainder + 1000 : remainder)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                      Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), fraction)
    }

    public static func date(from text: String) -> Date? {
        let strategy = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        return try? strategy.parse(text)
    }
}
