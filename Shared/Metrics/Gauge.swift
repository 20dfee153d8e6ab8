/// A value that goes up and down (requests in flight, rows waiting), set or moved without a lock.
public final class Gauge: Sendable {
    private let current = AtomicDouble()

    init() {}

    public func set(_ value: Double) {
        guard MetricsSwitch.isOn else { return }
        current.store(value)
    }

    public func increment(by amount: Double = 1) {
        guard MetricsSwitch.isOn else { return }
        current.add(amount)
    }

    public func decrement(by amount: Double = 1) {
        guard MetricsSwitch.isOn else { return }
        current.add(-amount)
    }

    public var value: Double { current.value }
}
