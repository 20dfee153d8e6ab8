import Foundation
import ParseWire

/// A `_JobSchedule` as parse-server and its dashboard shape it: `jobName`, `description`, `params` (JSON text),
/// `startAfter` (ISO date), `daysOfWeek` (0 is Sunday), `timeOfDay` (`HH:MM[:SS[.sss]]Z`, UTC), `repeatMinutes`,
/// `lastRun` (milliseconds since 1970). parse-server only stores schedules; here cloud also runs them:
/// - with `repeatMinutes`: first at `startAfter` (or at `timeOfDay` on or after it, when one is given), then every
///   `repeatMinutes` after the last run;
/// - with `timeOfDay` alone: every day at that time (on `daysOfWeek` only, when given), from `startAfter` on;
/// - with neither: once, at `startAfter`.
/// A schedule missed while cloud was down runs once when it is back, not once per missed time.
struct JobSchedule: Sendable, Equatable {
    var objectId: String
    var jobName: String
    var description: String?
    var params: String?
    var startAfter: Date
    var daysOfWeek: [Int]?
    /// Seconds after midnight UTC.
    var timeOfDay: Int?
    var repeatMinutes: Double?
    var lastRun: Double?

    /// The latest time at or before `now` the job was due and has not run for; nil when it is not due.
    func due(at now: Date) -> Date? {
        let lastRunDate = lastRun.map { Date(timeIntervalSince1970: $0 / 1000) }
        if let minutes = repeatMinutes, minutes > 0 {
            guard let first = firstRun else { return nil }
            let next = lastRunDate.map { max(first, $0.addingTimeInterval(minutes * 60)) } ?? first
            return next <= now ? next : nil
        }
        if timeOfDay != nil {
            guard let latest = latestDailyTime(atOrBefore: now), latest >= startAfter else { return nil }
            if let lastRunDate, lastRunDate >= latest { return nil }
            return latest
        }
        return lastRun == nil && startAfter <= now ? startAfter : nil
    }

    /// `startAfter`, or the first time of day on an allowed day at or after it.
    private var firstRun: Date? {
        guard timeOfDay != nil else { return startAfter }
        // Within eight days every weekday comes round once.
        for offset in 0...8 {
            let day = Self.midnight(of: startAfter).addingTimeInterval(Double(offset) * 86_400)
            if let time = dailyTime(on: day), time >= startAfter { return time }
        }
        return nil
    }

    private func latestDailyTime(atOrBefore now: Date) -> Date? {
        for offset in 0...8 {
            let day = Self.midnight(of: now).addingTimeInterval(-Double(offset) * 86_400)
            if let time = dailyTime(on: day), time <= now { return time }
        }
        return nil
    }

    /// The time of day on the day starting at `midnight` (UTC), if the schedule runs that weekday.
    private func dailyTime(on midnight: Date) -> Date? {
        guard let timeOfDay else { return nil }
        if let days = daysOfWeek, !days.isEmpty {
            // 1970-01-01 was a Thursday (4).
            let weekday = (Int(midnight.timeIntervalSince1970 / 86_400) + 4) % 7
            guard days.contains(weekday) else { return nil }
        }
        return midnight.addingTimeInterval(Double(timeOfDay))
    }

    private static func midnight(of date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
    }
}

extension JobSchedule {
    /// The schedule a `job_schedule` body describes, checked; `objectId` and `lastRun` as given by the caller.
    init(body: JSONValue?, objectId: String, lastRun: Double?, now: Date) throws(ParseError) {
        guard let fields = body?.objectValue else {
            throw ParseError(.invalidJSON, "job_schedule must be an object.")
        }
        guard let jobName = fields["jobName"]?.stringValue, !jobName.isEmpty else {
            throw ParseError(.invalidJSON, "job_schedule.jobName must be the name of a job.")
        }
        self.objectId = objectId
        self.jobName = jobName
        self.lastRun = lastRun
        description = try Self.optionalString(fields["description"], "description")
        switch fields["params"] {
        case nil, .null?: params = nil
        case .string(let text)?:
            guard JSONValue.parse(text)?.objectValue != nil else {
                throw ParseError(.invalidJSON, "job_schedule.params must be a JSON object, as text.")
            }
            params = text
        case .object?: params = fields["params"]?.compactText
        default: throw ParseError(.invalidJSON, "job_schedule.params must be a JSON object, as text.")
        }
        // parse-server: a schedule without `startAfter` starts now.
        if let text = try Self.optionalString(fields["startAfter"], "startAfter") {
            guard let date = ISODate.parse(text) else { throw ParseError(.invalidJSON, "job_schedule.startAfter must be an ISO 8601 date.") }
            startAfter = date
        } else {
            startAfter = now
        }
        if let text = try Self.optionalString(fields["timeOfDay"], "timeOfDay") {
            guard let seconds = Self.secondsOfDay(text) else {
                throw ParseError(.invalidJSON, "job_schedule.timeOfDay must be a UTC time of day such as 13:30:00.000Z.")
            }
            timeOfDay = seconds
        }
        switch fields["daysOfWeek"] {
        case nil, .null?: daysOfWeek = nil
        case .array(let items)?:
            let days = items.compactMap { $0.numberValue ?? $0.stringValue.flatMap(Double.init) }
            guard days.count == items.count, days.allSatisfy({ (0...6).contains($0) && $0.rounded() == $0 }) else {
                throw ParseError(.invalidJSON, "job_schedule.daysOfWeek must list days from 0 (Sunday) to 6.")
            }
            daysOfWeek = days.map { Int($0) }
        default: throw ParseError(.invalidJSON, "job_schedule.daysOfWeek must list days from 0 (Sunday) to 6.")
        }
        switch fields["repeatMinutes"] {
        case nil, .null?: repeatMinutes = nil
        case .number(let minutes)? where minutes >= 1 && minutes <= 525_600: repeatMinutes = minutes
        case .number(0)?: repeatMinutes = nil
        default: throw ParseError(.invalidJSON, "job_schedule.repeatMinutes must be a number of minutes from 1 to 525600.")
        }
    }

    /// `HH:MM`, `HH:MM:SS` or `HH:MM:SS.sss`, with an optional `Z`.
    static func secondsOfDay(_ text: String) -> Int? {
        let bare = text.hasSuffix("Z") ? String(text.dropLast()) : text
        let parts = bare.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), let hours = Int(parts[0]), let minutes = Int(parts[1]),
              (0..<24).contains(hours), (0..<60).contains(minutes), parts[0].count == 2, parts[1].count == 2 else { return nil }
        var seconds = 0
        if parts.count == 3 {
            guard let value = Double(parts[2]), (0..<60).contains(value), parts[2].count >= 2 else { return nil }
            seconds = Int(value)
        }
        return hours * 3600 + minutes * 60 + seconds
    }

    private static func optionalString(_ value: JSONValue?, _ name: String) throws(ParseError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw ParseError(.invalidJSON, "job_schedule.\(name) must be a string.")
        }
    }

    /// As parse-server answers it.
    var json: [String: JSONValue] {
        var fields: [String: JSONValue] = ["objectId": .string(objectId), "jobName": .string(jobName),
                                           "startAfter": .string(ParseDate.string(from: startAfter))]
        if let description { fields["description"] = .string(description) }
        if let params { fields["params"] = .string(params) }
        if let daysOfWeek { fields["daysOfWeek"] = .array(daysOfWeek.map { .number(Double($0)) }) }
        if let timeOfDay {
            fields["timeOfDay"] = .string(String(format: "%02d:%02d:%02d.000Z", timeOfDay / 3600, timeOfDay / 60 % 60, timeOfDay % 60))
        }
        if let repeatMinutes { fields["repeatMinutes"] = .number(repeatMinutes) }
        if let lastRun { fields["lastRun"] = .number(lastRun) }
        return fields
    }
}
