import Synchronization

/// True exactly once, from any thread: guards a continuation that more than one event may try to resume.
public final class OnceFlag: Sendable {
    private let claimed = Atomic<Bool>(false)

    public init() {}

    /// Returns true for the first caller only.
    public func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
