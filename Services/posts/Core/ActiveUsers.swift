import Contracts
import Foundation
import ParseWire
import Storage

/// Active users and retention for the dashboard's Analytics, from `analytics_active`: who sent an analytics event
/// on which day (a user by its id; without a signed-in user, the installation). The SDKs send `AppOpened` when the
/// app opens, so this counts app users as Parse's Analytics did. Logins are not counted: a user who stays signed in
/// logs in once.
///
/// `GET /analytics/active` (master key): `{"from","to","days":[{"day","active"}],"lastDay","last7Days","last30Days",
/// "cohorts":[{"week","new","returned":[count in week 1, 2, ...]}]}`: a cohort is the users first seen in a week of
/// the window (`from`..`to`, the last 8 weeks by default, whole days in UTC), and `returned[k-1]` how many of them
/// were active again in its k-th week after.
enum ActiveUsers {
    static func subject(_ identity: Identity) -> String? {
        if let userId = identity.userId { return "user:" + userId }
        if let installationId = identity.installationId, !installationId.isEmpty { return "installation:" + installationId }
        return nil
    }

    static func mark(_ subject: String, at: Date, on connection: PostgresConnection) async throws {
        _ = try await connection.query("""
            INSERT INTO analytics_active (day, subject) VALUES (($1::timestamptz AT TIME ZONE 'UTC')::date, $2) ON CONFLICT DO NOTHING
            """, [ParseDate.string(from: at), subject])
    }

    static func read(_ request: RESTRequest, identity: Identity, on connection: PostgresConnection) async throws -> RESTResponse {
        guard identity.isMaster || identity.isReadOnlyMaster else { return SchemasHandler.masterKeyRequired }
        let to = try request.query["to"].map(day) ?? day(of: Date())
        let from = try request.query["from"].map(day) ?? to.addingTimeInterval(-55 * 86_400)
        guard from <= to, to.timeIntervalSince(from) <= 366 * 86_400 else {
            throw ParseError(.invalidQuery, "from must come before to, at most a year apart.")
        }
        let window = [dayText(from), dayText(to)]
        let days = try await connection.query("""
            SELECT to_char(d, 'YYYY-MM-DD') AS day, (SELECT count(*) FROM analytics_active WHERE day = d::date) AS active
            FROM generate_series($1::date, $2::date, interval '1 day') AS d ORDER BY d
            """, window)
        let totals = try await connection.query("""
            SELECT count(DISTINCT subject) FILTER (WHERE day = $1::date) AS last_day,
                count(DISTINCT subject) FILTER (WHERE day > $1::date - 7) AS last7,
                count(DISTINCT subject) AS last30
            FROM analytics_active WHERE day > $1::date - 30 AND day <= $1::date
            """, [window[1]]).first
        // Weeks start on the window's first day, so a cohort is 7 whole days whichever day `from` is.
        let cohorts = try await connection.query("""
            WITH firsts AS (
                SELECT subject, min(day) AS first FROM analytics_active WHERE day BETWEEN $1::date AND $2::date GROUP BY subject
            ), cohorts AS (
                SELECT subject, $1::date + ((first - $1::date) / 7) * 7 AS week FROM firsts
            )
            SELECT to_char(c.week, 'YYYY-MM-DD') AS week, (a.day - c.week) / 7 AS offset, count(DISTINCT a.subject) AS n
            FROM cohorts AS c JOIN analytics_active AS a ON a.subject = c.subject AND a.day BETWEEN c.week AND $2::date
            GROUP BY c.week, (a.day - c.week) / 7 ORDER BY 1, 2
            """, window)
        var order: [String] = []
        var counts: [String: [Int: Double]] = [:]
        for row in cohorts.rows {
            guard let week = row["week"], let offset = row.int("offset"), let n = row.double("n") else { continue }
            if counts[week] == nil { order.append(week) }
            counts[week, default: [:]][offset] = n
        }
        let weeks = Int(to.timeIntervalSince(from) / 86_400) / 7
        let cohortList: [JSONValue] = order.map { week in
            let byOffset = counts[week] ?? [:]
            let start = Int((ParseDate.date(from: week + "T00:00:00.000Z") ?? from).timeIntervalSince(from) / 86_400) / 7
            let returned = (0..<max(0, weeks - start)).map { JSONValue.number(byOffset[$0 + 1] ?? 0) }
            return .object(["week": .string(week), "new": .number(byOffset[0] ?? 0), "returned": .array(returned)])
        }
        let dayList: [JSONValue] = days.rows.map { row in
            .object(["day": .string(row["day"] ?? ""), "active": .number(row.double("active") ?? 0)])
        }
        return PostsHandler.json(200, .object([
            "from": .string(window[0]), "to": .string(window[1]), "days": .array(dayList),
            "lastDay": .number(totals?.double("last_day") ?? 0), "last7Days": .number(totals?.double("last7") ?? 0),
            "last30Days": .number(totals?.double("last30") ?? 0), "cohorts": .array(cohortList),
        ]))
    }

    /// A day given as `YYYY-MM-DD` or an ISO date, as the start of that day in UTC.
    private static func day(_ text: String) throws(ParseError) -> Date {
        guard let date = ParseDate.date(from: text.count == 10 ? text + "T00:00:00.000Z" : text) else {
            throw ParseError(.invalidQuery, "Invalid day: \(text); days are written 2026-12-01.")
        }
        return day(of: date)
    }

    private static func day(of date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
    }

    private static func dayText(_ date: Date) -> String { String(ParseDate.string(from: date).prefix(10)) }
}
