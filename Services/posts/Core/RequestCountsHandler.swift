import Contracts
import Foundation
import ParseWire
import Storage

/// The API request counts behind the dashboard's Analytics view: `requests.count.v1` adds a gateway's report in
/// one transaction (once per report id); `GET /analytics/requests` (master key) reads them back.
enum RequestCountsHandler {
    static func record(_ report: RecordRequestCounts, on connection: PostgresConnection) async throws -> RequestCountsRecorded {
        guard let reportId = UUID(uuidString: report.reportId) else {
            throw ParseError(.invalidJSON, "reportId must be a UUID.")
        }
        var hours: [String] = [], routes: [String] = [], statuses: [String] = [], counts: [String] = []
        for count in report.counts where count.count > 0 {
            guard ParseDate.date(from: count.hour) != nil else { throw ParseError(.invalidJSON, "Invalid hour: \(count.hour)") }
            hours.append(count.hour)
            routes.append(count.route)
            statuses.append(String(count.status))
            counts.append(String(count.count))
        }
        let columns = (hours: hours, routes: routes, statuses: statuses, counts: counts)
        return try await connection.transaction { connection in
            let claimed = try await connection.query(
                "INSERT INTO request_count_reports (report_id) VALUES ($1) ON CONFLICT DO NOTHING", [reportId])
            guard claimed.affectedRows == 1 else { return RequestCountsRecorded(added: false) }
            // Reports older than a day can no longer be sent again: their ids are not needed any more.
            _ = try await connection.query("DELETE FROM request_count_reports WHERE added_at < now() - interval '1 day'", [])
            guard !columns.hours.isEmpty else { return RequestCountsRecorded(added: true) }
            var parameters = SQLParameters()
            let hourList = parameters.bindTextArray(columns.hours), routeList = parameters.bindTextArray(columns.routes)
            let statusList = parameters.bindTextArray(columns.statuses), countList = parameters.bindTextArray(columns.counts)
            _ = try await connection.query("""
                INSERT INTO request_counts (hour, route, status, count)
                SELECT r.hour::timestamptz, r.route, r.status::integer, sum(r.count::bigint)
                FROM unnest(\(hourList), \(routeList), \(statusList), \(countList)) AS r(hour, route, status, count)
                GROUP BY 1, 2, 3
                ON CONFLICT (hour, route, status) DO UPDATE SET count = request_counts.count + EXCLUDED.count
                """, parameters.values)
            return RequestCountsRecorded(added: true)
        }
    }

    /// `{"results":[{"hour","route","status","count"}]}` in hour order, for `from` to `to` (ISO dates; the last
    /// 24 hours by default).
    static func read(_ request: RESTRequest, identity: Identity, on connection: PostgresConnection) async throws -> RESTResponse {
        guard request.method == "GET" else {
            throw ParseError.noSuchRoute(request.method, "/\(request.path)")
        }
        guard identity.isMaster || identity.isReadOnlyMaster else { return SchemasHandler.masterKeyRequired }
        let now = Date()
        let from = try request.query["from"].map(date) ?? now.addingTimeInterval(-86_400)
        let to = try request.query["to"].map(date) ?? now
        let result = try await connection.query("""
            SELECT to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS hour, route, status, count
            FROM request_counts WHERE hour >= date_trunc('hour', $1::timestamptz) AND hour <= $2::timestamptz
            ORDER BY hour, route, status
            """, [from, to])
        let results: [JSONValue] = result.rows.compactMap { row in
            guard let hour = row["hour"], let route = row["route"], let status = row["status"].flatMap(Double.init),
                  let count = row["count"].flatMap(Double.init) else { return nil }
            return .object(["hour": .string(hour), "route": .string(route), "status": .number(status), "count": .number(count)])
        }
        return PostsHandler.json(200, .object(["results": .array(results)]))
    }

    private static func date(_ text: String) throws(ParseError) -> Date {
        guard let date = ParseDate.date(from: text) ?? (try? Date.ISO8601FormatStyle().parse(text)) else {
            throw ParseError(.invalidQuery, "Invalid date: \(text); dates are ISO 8601 like 2026-12-01T14:00:00.000Z.")
        }
        return date
    }
}
