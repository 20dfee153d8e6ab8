import Contracts
import Foundation
import ParseWire
import Query
import Runtime
import ServiceKit
import Storage

/// `POST /events/<name>` (`AppOpened` and custom events): answers `{}` as parse-server does, publishes the event as
/// `analytics.<name>.v1` and counts it per hour, and per hour and dimension value, in `analytics_counts`, and marks
/// its sender (the user, else the installation) active that day (`ActiveUsers`), all in one transaction.
/// `GET /events` and `GET /events/<name>` (master key) read the counts back.
struct AnalyticsHandler {
    let context: RequestContext

    func handle(_ request: RESTRequest, name: String?, on connection: PostgresConnection) async throws -> RESTResponse {
        switch (request.method, name) {
        case ("POST", let name?): return try await record(request, name: name, on: connection)
        case ("GET", _): return try await counts(request, name: name, on: connection)
        default: throw ParseError(.commandUnavailable, "Cannot \(request.method) /\(request.path): no such route.")
        }
    }

    private func record(_ request: RESTRequest, name: String, on connection: PostgresConnection) async throws -> RESTResponse {
        let event = try AnalyticsEvent(name: name, body: RequestBody.object(request.body), now: Date())
        try await connection.transaction { connection in
            var parameters = SQLParameters()
            let names = parameters.bind(event.name), hour = parameters.bind(event.hour) + "::timestamptz"
            let keys = parameters.bindTextArray([""] + event.dimensions.keys.sorted())
            let values = parameters.bindTextArray([""] + event.dimensions.keys.sorted().map { event.dimensions[$0] ?? "" })
            _ = try await connection.query("""
                INSERT INTO analytics_counts (event_name, hour, dimension, value, count)
                SELECT \(names), \(hour), d.dimension, d.value, 1 FROM unnest(\(keys)::text[], \(values)::text[]) AS d(dimension, value)
                ON CONFLICT (event_name, hour, dimension, value) DO UPDATE SET count = analytics_counts.count + 1
                """, parameters.values)
            if let subject = ActiveUsers.subject(context.identity) {
                try await ActiveUsers.mark(subject, at: event.at, on: connection)
            }
            let data = AnalyticsEventRecorded(name: event.name, at: ParseDate.string(from: event.at), dimensions: event.dimensions,
                                              user: context.identity.userId, installationId: context.identity.installationId)
            let cloudEvent = CloudEvent(id: RandomUUID.string(), source: "posts", type: AnalyticsEventRecorded.type(event.name),
                                        time: ParseDate.string(from: Date()), subject: event.name, data: data)
            try await Outbox.add(cloudEvent, routingKey: AnalyticsEventRecorded.routingKey(event.name), on: connection)
        }
        return PostsHandler.json(200, .object([:]))
    }

    /// `{"results":[{"name","hour","count","dimensions":{"key":{"value":count}}}]}`, hours in order, for `from` to
    /// `to` (ISO dates; the last 24 hours by default).
    private func counts(_ request: RESTRequest, name: String?, on connection: PostgresConnection) async throws -> RESTResponse {
        guard context.identity.isMaster || context.identity.isReadOnlyMaster else { return SchemasHandler.masterKeyRequired }
        let now = Date()
        let from = try request.query["from"].map(Self.date) ?? now.addingTimeInterval(-86_400)
        let to = try request.query["to"].map(Self.date) ?? now
        var parameters = SQLParameters()
        var conditions = ["hour >= date_trunc('hour', \(parameters.bind(from))::timestamptz)",
                          "hour <= \(parameters.bind(to))::timestamptz"]
        if let name { conditions.append("event_name = \(parameters.bind(name))") }
        let result = try await connection.query("""
            SELECT event_name, to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS hour, dimension, value, count
            FROM analytics_counts WHERE \(conditions.joined(separator: " AND ")) ORDER BY hour, event_name, dimension, value
            """, parameters.values)
        var order: [String] = []
        var buckets: [String: (name: String, hour: String, count: Double, dimensions: [String: [String: JSONValue]])] = [:]
        for row in result.rows {
            guard let event = row["event_name"], let hour = row["hour"], let count = row["count"].flatMap(Double.init) else { continue }
            let key = hour + "\u{0}" + event
            if buckets[key] == nil { order.append(key); buckets[key] = (event, hour, 0, [:]) }
            let dimension = row["dimension"] ?? ""
            if dimension.isEmpty {
                buckets[key]?.count = count
            } else {
                buckets[key]?.dimensions[dimension, default: [:]][row["value"] ?? ""] = .number(count)
            }
        }
        let results: [JSONValue] = order.compactMap { buckets[$0] }.map { bucket in
            .object(["name": .string(bucket.name), "hour": .string(bucket.hour), "count": .number(bucket.count),
                     "dimensions": .object(bucket.dimensions.mapValues { .object($0) })])
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

/// One analytics event checked: its name, when it happened (`at`, now by default) and its dimensions, string to
/// string as the Parse SDKs send them.
struct AnalyticsEvent: Sendable {
    var name: String
    var at: Date
    var dimensions: [String: String]

    /// The start of the hour it is counted in.
    var hour: Date { Date(timeIntervalSince1970: (at.timeIntervalSince1970 / 3_600).rounded(.down) * 3_600) }

    init(name: String, body: [String: JSONValue], now: Date) throws(ParseError) {
        // The name becomes a routing key (`analytics.<name>`): no dots or wildcards.
        guard !name.isEmpty, name.utf8.count <= 128,
              name.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") }) else {
            throw ParseError(.invalidKeyName, "Invalid event name: \(name); use letters, digits, _ and -.")
        }
        self.name = name
        switch body["dimensions"] {
        case nil, .null?: dimensions = [:]
        case .object(let fields)?:
            var strings: [String: String] = [:]
            for (key, value) in fields {
                guard !key.isEmpty, let text = value.stringValue else {
                    throw ParseError(.invalidJSON, "Dimensions expected string keys and values.")
                }
                strings[key] = text
            }
            dimensions = strings
        default:
            throw ParseError(.invalidJSON, "Dimensions expected string keys and values.")
        }
        switch body["at"] {
        case nil, .null?: at = now
        case .string(let text)?:
            guard let date = ParseDate.date(from: text) ?? (try? Date.ISO8601FormatStyle().parse(text)) else {
                throw ParseError(.invalidJSON, "at must be a date.")
            }
            at = date
        case let value?:
            guard let date = try? ValueStorage.date(value) else { throw ParseError(.invalidJSON, "at must be a date.") }
            at = date
        }
    }
}
