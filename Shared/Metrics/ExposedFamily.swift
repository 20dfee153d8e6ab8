/// A registered family, written without knowing what its children are.
protocol ExposedFamily: Sendable {
    var name: String { get }
    func write(into text: inout String)
}

extension MetricFamily: ExposedFamily {
    func write(into text: inout String) {
        PrometheusText.header(name, help: help, type: kind.rawValue, into: &text)
        for (values, child) in children() {
            let labels = Array(zip(labelNames, values)).map { (name: $0.0, value: $0.1) }
            switch child {
            case let counter as Counter:
                PrometheusText.line(name, labels, counter.value, into: &text)
            case let gauge as Gauge:
                PrometheusText.line(name, labels, gauge.value, into: &text)
            case let histogram as Histogram:
                let counts = histogram.cumulativeCounts
                for (index, bound) in histogram.bounds.enumerated() {
                    PrometheusText.line(name + "_bucket", labels + [("le", PrometheusText.format(bound))],
                                        Double(counts[index]), into: &text)
                }
                PrometheusText.line(name + "_bucket", labels + [("le", "+Inf")], Double(counts.last ?? 0), into: &text)
                PrometheusText.line(name + "_sum", labels, histogram.sum, into: &text)
                PrometheusText.line(name + "_count", labels, Double(counts.last ?? 0), into: &text)
            default:
                break
            }
        }
    }
}
