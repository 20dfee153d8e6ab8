import Foundation
import ParseWire

/// A `POST /push` body checked as parse-server's PushRouter and PushController check it: `where` or `channels`
/// (not both), `data`, `push_time`, `expiration_time` or `expiration_interval`, and the badge change `data.badge`
/// asks for. Nothing is stored for a body this refuses.
struct PushRequest: Sendable {
    enum BadgeChange: Sendable, Equatable { case increment(Double), set(Double) }

    var whereClause: [String: JSONValue]
    var data: [String: JSONValue]
    /// When to send; nil: now. `localTime`: the body gave no time zone (kept without `Z`, as parse-server does).
    var pushTime: Date?
    var localTime = false
    /// Milliseconds since 1970, as parse-server stores `expiry`.
    var expirationTime: Double?
    var expirationInterval: Double?
    var badge: BadgeChange?
    /// The `_Audience` the push was sent to, whose `timesUsed` and `lastUsed` it updates.
    var audienceId: String?

    init(_ body: [String: JSONValue], now: Date) throws(ParseError) {
        switch (body["where"], body["channels"]) {
        case (.some, .some):
            throw ParseError(.pushMisconfigured, "Channels and query can not be set at the same time.")
        case (nil, nil):
            throw ParseError(.pushMisconfigured, "Sending a push requires either \"channels\" or a \"where\" query.")
        case (let value?, nil):
            whereClause = try Self.whereObject(value)
        case (nil, let value?):
            guard let channels = value.arrayValue, channels.allSatisfy({ $0.stringValue != nil }) else {
                throw ParseError(.pushMisconfigured, "channels must be an array of strings.")
            }
            whereClause = ["channels": .object(["$in": .array(channels)])]
        }
        switch body["data"] {
        case nil, .null?: data = [:]
        case .object(let fields)?: data = fields
        default: throw ParseError(.pushMisconfigured, "data must be an object.")
        }
        if let value = body["expiration_time"] {
            expirationTime = try Self.time(value, field: "expiration_time").date.timeIntervalSince1970 * 1000
        }
        if let value = body["expiration_interval"] {
            guard let seconds = value.numberValue, seconds > 0, seconds.isFinite else {
                throw ParseError(.pushMisconfigured, "expiration_interval must be a number greater than 0")
            }
            expirationInterval = seconds
        }
        if expirationTime != nil && expirationInterval != nil {
            throw ParseError(.pushMisconfigured, "Both expiration_time and expiration_interval cannot be set")
        }
        if let value = body["push_time"] {
            let time = try Self.time(value, field: "push_time")
            pushTime = time.date
            localTime = time.local
        }
        if let interval = expirationInterval {
            // Counted from the moment the push goes out; parse-server takes any positive interval, and one that
            // reaches past the dates a JavaScript `Date` holds never expires.
            expirationTime = min(((pushTime ?? now).timeIntervalSince1970 + interval) * 1000,
                                 ParseDate.javaScriptRange.upperBound)
        }
        badge = try Self.badgeChange(data["badge"])
        audienceId = body["audience_id"]?.stringValue
    }

    /// When the first device is due: now, the push time, or for a local time the moment the first zone reaches it
    /// (UTC+14).
    func firstDue(now: Date) -> Date {
        guard let pushTime else { return now }
        return localTime ? pushTime.addingTimeInterval(-14 * 3_600) : pushTime
    }

    /// The moment after which the push must not be delivered, as a Parse date.
    var expirationDate: String? {
        expirationTime.map { ParseDate.string(from: Date(timeIntervalSince1970: $0 / 1000)) }
    }

    /// `pushTime` as `_PushStatus` keeps it: an ISO date, without `Z` for a local time.
    func pushTimeText(now: Date) -> String {
        let text = ParseDate.string(from: pushTime ?? now)
        return localTime ? String(text.dropLast()) : text
    }

    /// The PHP SDK sends `"{}"` (a string) for a query without constraints.
    private static func whereObject(_ value: JSONValue) throws(ParseError) -> [String: JSONValue] {
        switch value {
        case .object(let fields): return fields
        case .string(let text):
            guard let fields = JSONValue.parse(text)?.objectValue else {
                throw ParseError(.invalidQuery, "where must be a JSON object.")
            }
            return fields
        default:
            throw ParseError(.invalidQuery, "where must be a JSON object.")
        }
    }

    /// A number (seconds since 1970) or an ISO 8601 date; without a time zone it is a local time.
    private static func time(_ value: JSONValue, field: String) throws(ParseError) -> (date: Date, local: Bool) {
        switch value {
        // parse-server refuses a time a JavaScript `Date` cannot hold ("Invalid Date").
        case .number(let seconds) where ParseDate.javaScriptRange.contains(seconds * 1000):
            return (Date(timeIntervalSince1970: seconds), false)
        case .string(let text):
            let hasZone = text.hasSuffix("Z") || text.range(of: #"[+-]\d\d:\d\d$"#, options: .regularExpression) != nil
            guard let date = ISODate.parse(hasZone ? text : text + "Z") else {
                throw ParseError(.pushMisconfigured, "\(text) is not valid time.")
            }
            return (date, !hasZone)
        case .object(let fields) where fields["__type"]?.stringValue == "Date":
            guard let iso = fields["iso"]?.stringValue, let date = ISODate.parse(iso) else {
                throw ParseError(.pushMisconfigured, "\(value.compactText) is not valid time.")
            }
            return (date, false)
        default:
            throw ParseError(.pushMisconfigured, "\(value.compactText) is not valid time.")
        }
    }

    private static func badgeChange(_ value: JSONValue?) throws(ParseError) -> BadgeChange? {
        // parse-server changes badges only for a truthy `badge`.
        guard let value, ![.null, .bool(false), .string(""), .number(0)].contains(value) else { return nil }
        if let text = value.stringValue, text.lowercased() == "increment" { return .increment(1) }
        if let fields = value.objectValue, fields["__op"]?.stringValue?.lowercased() == "increment",
           let amount = fields["amount"]?.numberValue, amount.isFinite, amount != 0 {
            return .increment(amount)
        }
        if let number = value.numberValue, number.isFinite, number != 0 { return .set(number) }
        throw ParseError(.pushMisconfigured, "Invalid value for badge, expected number or 'Increment' or {increment: number}")
    }
}
