import Synchronization

/// The metrics of one process, written in Prometheus' text format by `exposition()`. Families are registered once
/// (registering a name again answers the family already there, so every connection of a process can ask for the
/// same one) and live as long as the registry.
public final class MetricsRegistry: Sendable {
    /// The process's registry: what its metrics endpoint serves. Shared libraries (messaging, storage) count into
    /// it, so every executable built on them exports their metrics without wiring.
    public static let shared = MetricsRegistry()

    private let families = Mutex<[String: any ExposedFamily]>([:])
    private let collectors = Mutex<[String: @Sendable () -> [Sample]]>([:])

    public init() {}

    /// `name` gets `_total` appended when it lacks it, as Prometheus names counters.
    public func counter(_ name: String, help: String, labels: [String] = []) -> MetricFamily<Counter> {
        let full = name.hasSuffix("_total") ? name : name + "_total"
        return family(full, help: help, labels: labels, kind: .counter) { Counter() }
    }

    public func gauge(_ name: String, help: String, labels: [String] = []) -> MetricFamily<Gauge> {
        family(name, help: help, labels: labels, kind: .gauge) { Gauge() }
    }

    public func histogram(_ name: String, help: String, labels: [String] = [],
                          buckets: [Double] = Histogram.latencyBuckets) -> MetricFamily<Histogram> {
        precondition(buckets == buckets.sorted() && Set(buckets).count == buckets.count && !labels.contains("le"),
                     "\(name): buckets must ascend, without repeats, and `le` is reserved")
        return family(name, help: help, labels: labels, kind: .histogram) { Histogram(bounds: buckets) }
    }

    /// Values read when the metrics are written, not kept here (the process's memory and descriptors); `key`
    /// names the collector so that registering it again replaces it.
    public func collect(_ key: String, _ samples: @escaping @Sendable () -> [Sample]) {
        collectors.withLock { $0[key] = samples }
    }

    private func family<Child>(_ name: String, help: String, labels: [String], kind: MetricKind,
                               make: @escaping @Sendable () -> Child) -> MetricFamily<Child> {
        precondition(PrometheusText.isValidMetricName(name), "invalid metric name \(name)")
        precondition(labels.allSatisfy(PrometheusText.isValidLabelName), "invalid label names \(labels) of \(name)")
        return families.withLock { families in
            if let entry = families[name] {
                guard let existing = entry as? MetricFamily<Child>, existing.labelNames == labels else {
                    preconditionFailure("\(name) is already registered with another type or other labels")
                }
                return existing
            }
            let created = MetricFamily(name: name, help: help, labelNames: labels, kind: kind, make: make)
            families[name] = created
            return created
        }
    }

    /// Every metric in the text exposition format 0.0.4, families sorted by name.
    public func exposition() -> String {
        var text = ""
        let registered = families.withLock { Array($0.values) }
        let collected = collectors.withLock { Array($0.values) }.flatMap { $0() }
        var blocks: [(name: String, write: (inout String) -> Void)] = registered.map { family in
            (family.name, { family.write(into: &$0) })
        }
        for group in Dictionary(grouping: collected, by: \.name).values {
            blocks.append((group[0].name, { PrometheusText.write(group, into: &$0) }))
        }
        for block in blocks.sorted(by: { $0.name < $1.name }) { block.write(&text) }
        return text
    }
}
