extension Duration {
    /// The whole duration in milliseconds, fractions kept: for logs, timeouts and broker expirations.
    public var totalMilliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}

extension ContinuousClock.Instant {
    /// Milliseconds since this instant, two decimals, for `duration_ms` log fields.
    public var millisecondsElapsedText: String {
        let ms = (ContinuousClock.now - self).totalMilliseconds
        return String((ms * 100).rounded() / 100)
    }
}
