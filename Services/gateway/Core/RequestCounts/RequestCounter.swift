import Contracts
import Foundation
import ParseWire
import Synchronization

/// API requests counted per hour, route template and status in memory; `RequestCountReporter` takes them from
/// here every few seconds. A request costs one lock and one dictionary update.
final class RequestCounter: Sendable {
    struct Key: Hashable, Sendable {
        var hour: Int
        var route: String
        var status: Int
    }

    private let counts = Mutex<[Key: Int]>([:])

    /// The metrics' route template with a leading slash, as the dashboard shows a call: `/classes/:className`.
    static func template(_ route: String) -> String {
        let template = RouteTemplate.of(route)
        return template == "/" ? template : "/" + template
    }

    func record(method: String, route: String, status: Int, at date: Date = Date()) {
        let key = Key(hour: Int(date.timeIntervalSince1970) / 3_600, route: method + " " + Self.template(route),
                      status: status)
        counts.withLock { $0[key, default: 0] += 1 }
    }

    /// Everything counted since the last call, emptied.
    func take() -> [RecordRequestCounts.Count] {
        let taken = counts.withLock { counts in
            defer { counts = [:] }
            return counts
        }
        return taken.map { key, count in
            RecordRequestCounts.Count(hour: ParseDate.string(from: Date(timeIntervalSince1970: Double(key.hour * 3_600))),
                                      route: key.route, status: key.status, count: count)
        }.sorted { ($0.hour, $0.route, $0.status) < ($1.hour, $1.route, $1.status) }
    }

    /// Counts given back after a report could not be sent.
    func restore(_ items: [RecordRequestCounts.Count]) {
        counts.withLock { counts in
            for item in items {
                guard let date = ParseDate.date(from: item.hour) else { continue }
                let key = Key(hour: Int(date.timeIntervalSince1970) / 3_600, route: item.route, status: item.status)
                counts[key, default: 0] += item.count
            }
        }
    }
}
