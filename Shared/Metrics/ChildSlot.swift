import Synchronization

/// One child of a family, resolved on first use and then read with one atomic load: a hot path with fixed labels
/// keeps a slot instead of asking the family (which builds a key, hashes it and takes a lock) on every update. The
/// child is made only when first needed, so a series appears in the output once something was counted into it.
public final class ChildSlot<Child: AnyObject & Sendable>: Sendable {
    private let stored = Atomic<Unmanaged<Child>?>(nil)

    public init() {}

    /// The child, from `resolve` the first time (the family's `labels`, which answers the same child to every
    /// caller, so two threads racing here store the same one).
    @inline(__always)
    public func child(_ resolve: () -> Child) -> Child {
        if let held = stored.load(ordering: .acquiring) { return held.takeUnretainedValue() }
        return install(resolve())
    }

    private func install(_ child: Child) -> Child {
        let retained = Unmanaged.passRetained(child)
        let (exchanged, existing) = stored.compareExchange(expected: nil, desired: retained,
                                                           ordering: .acquiringAndReleasing)
        if exchanged { return child }
        retained.release()
        return existing!.takeUnretainedValue()
    }

    deinit {
        stored.load(ordering: .acquiring)?.release()
    }
}
