/// A value that only goes up (requests served, reconnects). Incremented with one atomic add, no lock.
public final class Counter: Sendable {
    private let count = AtomicCount()
    /// Counters of seconds (CPU time) are fractional; most count events and stay whole.
    private let fraction = AtomicDouble()

    init() {}

    public func increment(by amount: UInt64 = 1) {
        guard MetricsSwitch.isOn else { return }
        count.add(amount)
    }

    /// For counters of a quantity that is not whole (seconds); a negative amount is ignored.
    public func add(_ amount: Double) {
        guard amount > 0, MetricsSwitch.isOn else { return }
        fraction.add(amount)
    }

    public var value: Double { Double(count.value) + fraction.value }
}
