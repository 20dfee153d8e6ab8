import Contracts
import Foundation
import ParseWire
import Synchronization

/// API requests counted per app, hour, route template and status in memory; `RequestCountReporter` takes them from
/// here every few seconds. A request costs one lock and one dictionary update; the route's text is only built when
/// the counts are taken.
final class RequestCounter: Sendable {
    struct Key: Hashable, Sendable {
        /// Nil for the stack's own app.
        var app: String?
        var hour: Int
        var method: String
        /// A `RouteTemplate.index`.
        var template: Int
        var status: Int

        /// `GET /classes/:className`, as the dashboard shows a call.
        var route: String { method + " " + RequestCounter.template(index: template) }
    }

    private let counts = Mutex<[Key: Int]>([:])

    /// The metrics' route template with a leading slash, as the dashboard shows a call: `/classes/:className`.
    static func template(_ route: String) -> String {
        template(index: RouteTemplate.index(of: route))
    }

    static func template(index: Int) -> String {
        let template = RouteTemplate.names[index]
        return template == "/" ? template : "/" + template
    }

    func record(method: String, route: String, status: Int, app: String? = nil, at date: Date = Date()) {
        record(method: method, template: RouteTemplate.index(of: route), status: status, app: app, at: date)
    }

    /// `template` is the `RouteTemplate.index` of the request's route; `app` one the registry knows (nil: the
    /// stack's own).
    func record(method: String, template: Int, status: Int, app: String? = nil, at date: Date = Date()) {
        let key = Key(app: app, hour: Int(date.timeIntervalSince1970) / 3_600, method: method, template: template, status: status)
        counts.withLock { $0[key, default: 0] += 1 }
    }

    /// Everything counted since the last call, emptied, by app.
    func take() -> [String?: [RecordRequestCounts.Count]] {
        let taken = counts.withLock { counts in
            defer { counts = [:] }
            return counts
        }
        return Dictionary(grouping: taken) { $0.key.app }.mapValues { counts in
            counts.map { key, count in
                RecordRequestCounts.Count(hour: ParseDate.string(from: Date(timeIntervalSince1970: Double(key.hour * 3_600))),
                                          route: key.route, status: key.status, count: count)
            }.sorted { ($0.hour, $0.route, $0.status) < ($1.hour, $1.route, $1.status) }
        }
    }

    /// Counts of `app` given back after a report could not be sent.
    func restore(_ items: [RecordRequestCounts.Count], app: String? = nil) {
        counts.withLock { counts in
            for item in items {
                guard let date = ParseDate.date(from: item.hour), let space = item.route.firstIndex(of: " "),
                      let template = Self.templateIndex[String(item.route[item.route.index(after: space)...])] else {
                    continue
                }
                let key = Key(app: app, hour: Int(date.timeIntervalSince1970) / 3_600, method: String(item.route[..<space]),
                              template: template, status: item.status)
                counts[key, default: 0] += item.count
            }
        }
    }

    /// Each template's text (with its leading slash) to its index, to read back what `take` answered.
    private static let templateIndex = Dictionary(uniqueKeysWithValues: RouteTemplate.names.indices.map {
        (template(index: $0), $0)
    })
}
