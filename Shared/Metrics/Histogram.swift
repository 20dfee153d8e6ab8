/// Observations counted into fixed buckets (Prometheus' cumulative `le` buckets are summed when written, so an
/// observation costs one atomic add for its bucket and one for the sum, no lock).
public final class Histogram: Sendable {
    /// Upper bounds, ascending, without `+Inf` (the last count is everything above the last bound).
    let bounds: [Double]
    private let counts: [AtomicCount]
    private let total = AtomicDouble()

    init(bounds: [Double]) {
        self.bounds = bounds
        counts = (0...bounds.count).map { _ in AtomicCount() }
    }

    public func observe(_ value: Double) {
        guard MetricsSwitch.isOn else { return }
        var index = 0
        while index < bounds.count, value > bounds[index] { index += 1 }
        counts[index].add(1)
        total.add(value)
    }

    public func observe(_ duration: Duration) {
        guard MetricsSwitch.isOn else { return }
        let parts = duration.components
        observe(Double(parts.seconds) + Double(parts.attoseconds) / 1e18)
    }

    /// Cumulative counts, one per bound and a last one for `+Inf` (which is the total count).
    var cumulativeCounts: [UInt64] {
        var running: UInt64 = 0
        return counts.map { count in
            running += count.value
            return running
        }
    }

    var sum: Double { total.value }
    public var count: UInt64 { cumulativeCounts.last ?? 0 }
}

extension Histogram {
    /// Seconds, from 1 ms to 10 s: request and command handling times.
    public static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// Seconds, from 50 us to 1 s: waits for a database connection and statements, mostly well under a millisecond.
    public static let shortBuckets: [Double] = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                0.05, 0.1, 0.25, 1]
}
