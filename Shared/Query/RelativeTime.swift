import Foundation
import ParseWire

/// parse-server's `$relativeTime` grammar (`Utils.relativeTimeToDate`): "in 2 days", "3 weeks ago",
/// "in 1 year 2 hours", "now"; pairs of an integer and a unit, years of 365 days.
public enum RelativeTime {
    static let unitSeconds: [String: Double] = [
        "yr": 31_536_000, "yrs": 31_536_000, "year": 31_536_000, "years": 31_536_000,
        "wk": 604_800, "wks": 604_800, "week": 604_800, "weeks": 604_800,
        "d": 86_400, "day": 86_400, "days": 86_400,
        "hr": 3_600, "hrs": 3_600, "hour": 3_600, "hours": 3_600,
        "min": 60, "mins": 60, "minute": 60, "minutes": 60,
        "sec": 1, "secs": 1, "second": 1, "seconds": 1,
    ]

    /// The date `text` names, counted from `now`; the error is parse-server's explanation.
    public static func date(_ text: String, now: Date = Date()) -> Result<Date, RelativeTimeError> {
        let lowered = text.lowercased()
        var parts = lowered.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let future = parts.first == "in"
        let past = parts.last == "ago"
        if !future && !past && lowered != "now" {
            return .failure(RelativeTimeError("Time should either start with 'in' or end with 'ago'"))
        }
        if future && past { return .failure(RelativeTimeError("Time cannot have both 'in' and 'ago'")) }
        if future { parts.removeFirst() } else { parts.removeLast() }
        if parts.count % 2 != 0 && lowered != "now" {
            return .failure(RelativeTimeError("Invalid time string. Dangling unit or number."))
        }
        var seconds = 0.0
        for index in stride(from: 0, to: parts.count - 1, by: 2) {
            let number = parts[index], unit = parts[index + 1]
            guard let value = Double(number), value == value.rounded(), value.isFinite else {
                return .failure(RelativeTimeError("'\(number)' is not an integer."))
            }
            guard let factor = unitSeconds[unit] else { return .failure(RelativeTimeError("Invalid interval: '\(unit)'")) }
            seconds += value * factor
        }
        let date = now.addingTimeInterval(future ? seconds : -seconds)
        // parse-server's JavaScript `Date` is invalid past 100,000,000 days either side of 1970, and no such date
        // can be stored or compared here either.
        guard seconds.isFinite, ParseDate.javaScriptRange.contains(date.timeIntervalSince1970 * 1000) else {
            return .failure(RelativeTimeError("The date is out of range: dates must lie within 100,000,000 days of 1970."))
        }
        return .success(date)
    }

    /// The date of a `{"$relativeTime": ...}` operand of comparison `op`, or parse-server's 107 (its message names
    /// the comparison, as parse-server's Mongo adapter and the SDKs' tests do).
    public static func date(operand: JSONValue, op: String) throws(ParseError) -> Date {
        guard let text = operand.stringValue else {
            throw ParseError(.invalidJSON, "bad $relativeTime (\(op)) value. Time should be a string")
        }
        switch date(text) {
        case .success(let date): return date
        case .failure(let error): throw ParseError(.invalidJSON, "bad $relativeTime (\(op)) value. \(error.info)")
        }
    }
}

public struct RelativeTimeError: Error, Equatable {
    public var info: String
    init(_ info: String) { self.info = info }
}
