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

/// A small, fast generator whose whole sequence follows from its seed.
struct SplitMix64: RandomNumberGenerator, Sendable, Equatable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
