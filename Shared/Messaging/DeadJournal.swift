import Glibc

/// The journal of a dead process, read by a living one (`CrashJournal.verdict`). Its process held it under an
/// exclusive lock; readers take a shared one, so a journal still locked exclusively belongs to a living process and
/// is not read, while any number of readers (a replica and a restarted process, each asked about the commands the
/// crash sent back) read a dead one at once. Only a reader that gets the lock alone deletes it.
struct DeadJournal {
    struct Entry: Equatable {
        var key: UInt64
        var suspect: Bool
        /// Its handler's task was the one the crashing thread ran.
        var crashed = false
    }

    let path: String
    /// When its process crashed (seconds since 1970), or 0 when it died without a crash.
    let crashedAt: Int64
    /// The commands in flight when it died.
    let entries: [Entry]
    private let descriptor: Int32

    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else {
            Glibc.close(descriptor)
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: CrashJournal.fileSize)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        func word<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        }
        guard count == CrashJournal.fileSize, word(0, UInt32.self) == CrashJournal.magic else {
            // Not a journal, or one cut short: nothing to learn from it.
            self.path = path
            self.descriptor = descriptor
            crashedAt = 0
            entries = []
            return
        }
        var entries: [Entry] = []
        for slot in 0..<CrashJournal.slotCount {
            let offset = CrashJournal.headerSize + slot * CrashJournal.slotSize
            let key = word(offset, UInt64.self)
            guard key != 0 else { continue }
            let flags = word(offset + CrashJournal.flagsOffset, UInt64.self)
            entries.append(Entry(key: key, suspect: flags & CrashJournal.suspectFlag != 0,
                                 crashed: flags & CrashJournal.crashedFlag != 0))
        }
        self.path = path
        self.descriptor = descriptor
        crashedAt = word(CrashSignals.crashTimeOffset, Int64.self)
        self.entries = entries
    }

    /// Deletes it, unless another reader holds it right now (it is then left for a later reader).
    func remove() {
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return }
        unlink(path)
    }

    func close() { Glibc.close(descriptor) }
}
