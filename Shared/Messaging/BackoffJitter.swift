import Runtime
/// Spreads reconnect pauses: after a broker restart every process of the cluster would otherwise retry at the
/// same instants. A pause is shortened by up to `fraction` of itself (never lengthened, so the cap holds). The
/// numbers come from a seeded generator, so a test gives a seed, or `.none`, and knows every pause in advance.
struct BackoffJitter: Sendable, Equatable {
    static let defaultFraction = 0.2
    static let none = BackoffJitter(fraction: 0, seed: 0)

    let fraction: Double
    private var generator: SplitMix64

    init(fraction: Double = defaultFraction, seed: UInt64) {
        precondition((0...1).contains(fraction), "a jitter fraction between 0 and 1")
        self.fraction = fraction
        generator = SplitMix64(seed: seed)
    }

    /// Seeded from the system's random source: processes started together do not pause in step.
    static func random() -> BackoffJitter {
        var system = SystemRandomNumberGenerator()
        return BackoffJitter(seed: system.next())
    }

    mutating func apply(to seconds: Double) -> Double {
        guard fraction > 0 else { return seconds }
        return seconds * (1 - fraction * Double.random(in: 0..<1, using: &generator))
    }
}
