import Foundation

/// ISO 8601 dates as clients write them: with or without fractional seconds, `Z` or an offset.
public enum ISODate {
    public static func parse(_ text: String) -> Date? {
        if let date = ParseDate.date(from: text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
