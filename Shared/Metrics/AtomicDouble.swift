import Synchronization

/// A `Double` updated without a lock: its bits live in an atomic integer, and an addition retries until no other
/// thread changed the value in between (rare: two cores, short critical path).
final class AtomicDouble: Sendable {
    private let bits: Atomic<UInt64>

    init(_ value: Double = 0) {
        bits = Atomic(value.bitPattern)
    }

    var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }

    func store(_ value: Double) {
        bits.store(value.bitPattern, ordering: .relaxed)
    }

    func add(_ amount: Double) {
        var current = bits.load(ordering: .relaxed)
        while true {
            let next = (Double(bitPattern: current) + amount).bitPattern
            let (exchanged, original) = bits.weakCompareExchange(expected: current, desired: next,
                                                                 ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}

/// One atomic count, as a class so that a histogram can hold an array of them.
final class AtomicCount: Sendable {
    private let count = Atomic<UInt64>(0)

    var value: UInt64 { count.load(ordering: .relaxed) }

    func add(_ amount: UInt64) {
        count.add(amount, ordering: .relaxed)
    }
}
