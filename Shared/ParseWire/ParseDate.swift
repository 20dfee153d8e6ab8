import Foundation

/// Parse dates on the wire: UTC, exactly three fractional digits, literal `Z` (`2026-11-30T14:02:51.492Z`).
/// The Swift SDK refuses any other form.
public enum ParseDate {
    public static func string(from date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(millis / 1000)
        let fraction = Int(millis % 1000)
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
