import Glibc
import Synchronization

/// Marks the process's crash journals when it dies of a crash signal (a Swift trap is `SIGILL` or `SIGTRAP`, then
/// `SIGSEGV`, `SIGBUS`, `SIGFPE`, `abort`'s `SIGABRT`), then lets the signal take its course as before: the
/// previous handler (the Swift runtime's backtracer, when on) or the default action. `SIGKILL` cannot be caught,
/// so a process killed on purpose leaves its journals unmarked and its commands are run again as usual.
enum CrashSignals {
    /// Where a journal keeps the time of the crash (seconds since 1970; 0 while the process lives).
    static let crashTimeOffset = 16
    static let capacity = 16
    static let caught = [SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE]

    // Read by the signal handler, which may take no lock: fixed tables, each entry set or cleared by one store
    // under `installation`. The handler only reads them.
    nonisolated(unsafe) static let journals: UnsafeMutablePointer<UnsafeMutableRawPointer?> = {
        let table = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: capacity)
        table.initialize(repeating: nil, count: capacity)
        return table
    }()
    nonisolated(unsafe) static let previous: UnsafeMutablePointer<sigaction> = {
        let table = UnsafeMutablePointer<sigaction>.allocate(capacity: Int(NSIG))
        table.initialize(repeating: sigaction(), count: Int(NSIG))
        return table
    }()
    private static let installation = Mutex(false)

    /// Marks the journal mapped at `base` when the process crashes.
    static func install(marking base: UnsafeMutableRawPointer) {
        installation.withLock { installed in
            if !installed {
                installed = true
                for number in caught {
                    var action = sigaction()
                    action.__sigaction_handler.sa_sigaction = crashSignalHandler
                    action.sa_flags = SA_SIGINFO | SA_ONSTACK
                    sigemptyset(&action.sa_mask)
                    sigaction(number, &action, previous + Int(number))
                }
            }
            if let free = (0..<capacity).first(where: { journals[$0] == nil }) { journals[free] = base }
        }
    }

    /// The task the calling thread runs (0 outside one): the address `UnsafeCurrentTask` holds, which the runtime
    /// reads from a thread-local, so the signal handler may ask it too.
    static func currentTask() -> UInt64 {
        withUnsafeCurrentTask { task in task.map { unsafeBitCast($0, to: UInt64.self) } } ?? 0
    }

    /// Flags the journal slots whose task is `task`: what the crashing thread was running.
    static func markSlots(of task: UInt64, in base: UnsafeMutableRawPointer) {
        guard task != 0 else { return }
        for slot in 0..<CrashJournal.slotCount {
            let offset = CrashJournal.headerSize + slot * CrashJournal.slotSize
            guard base.load(fromByteOffset: offset, as: UInt64.self) != 0,
                  base.load(fromByteOffset: offset + CrashJournal.taskOffset, as: UInt64.self) == task else { continue }
            let flags = base.load(fromByteOffset: offset + CrashJournal.flagsOffset, as: UInt64.self)
            base.storeBytes(of: flags | CrashJournal.crashedFlag, toByteOffset: offset + CrashJournal.flagsOffset,
                            as: UInt64.self)
        }
    }

    static func forget(_ base: UnsafeMutableRawPointer) {
        installation.withLock { _ in
            if let index = (0..<capacity).first(where: { journals[$0] == base }) { journals[index] = nil }
        }
    }
}

/// Async-signal-safe: loads, stores and `clock_gettime`/`sigaction`/`raise` only.
private func crashSignalHandler(_ number: Int32, _ info: UnsafeMutablePointer<siginfo_t>?,
                                _ context: UnsafeMutableRawPointer?) {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let stamp = Int64(max(now.tv_sec, 1))
    let task = CrashSignals.currentTask()
    for index in 0..<CrashSignals.capacity {
        guard let journal = CrashSignals.journals[index] else { continue }
        CrashSignals.markSlots(of: task, in: journal)
        journal.storeBytes(of: stamp, toByteOffset: CrashSignals.crashTimeOffset, as: Int64.self)
    }
    sigaction(number, CrashSignals.previous + Int(number), nil)
    // A fault (ud2, a bad address) happens again when the handler returns, now under the previous action; a trap
    // instruction or a raised signal does not, so it is raised again (blocked until the handler returns).
    if number == SIGTRAP || info?.pointee.si_code ?? 0 <= 0 { raise(number) }
}
