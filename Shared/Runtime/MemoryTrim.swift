import Dispatch
import CMalloc
import Synchronization

/// Hands memory freed after large work (a body of megabytes, its parsed copies, its SQL) back to the system.
/// glibc keeps what was freed in its arenas for reuse, so a burst of large requests leaves a process as large as
/// the burst made it for good; `malloc_trim` returns the free pages. Run a moment after the work, once per burst,
/// on a thread of its own, and only after large work: it walks every arena, which small requests need not pay for.
public enum MemoryTrim {
    /// Work on this many bytes or more counts as large.
    public static let largeBytes = 1 << 20
    private static let scheduled = Mutex(false)

    public static func afterLargeWork() {
        let first = scheduled.withLock { scheduled in
            defer { scheduled = true }
            return !scheduled
        }
        guard first else { return }
        // Once soon, and once more after what follows the work has let go of its copies too (an event relayed
        // from the outbox, a connection closed for its buffers).
        let queue = DispatchQueue.global(qos: .utility)
        queue.asyncAfter(deadline: .now() + .milliseconds(500)) { _ = malloc_trim(0) }
        queue.asyncAfter(deadline: .now() + .seconds(3)) {
            scheduled.withLock { $0 = false }
            _ = malloc_trim(0)
        }
    }
}
