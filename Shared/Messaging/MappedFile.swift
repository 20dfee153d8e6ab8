import Glibc

/// A file of fixed size mapped shared into memory and locked to this process: what is stored in it reaches the
/// kernel's page cache at once, so it is there for the next reader even when this process dies the next moment.
/// Locked with `flock`, which the kernel releases when the process dies: a journal whose lock can be taken
/// belongs to no living process.
final class MappedFile: @unchecked Sendable {
    // Each word of the mapping has one writer at a time: a `CrashJournal` slot its holder, the crash mark the
    // signal handler. It is read by another process only once this one is dead. The pointer never changes.
    let pointer: UnsafeMutableRawPointer
    private let size: Int
    private let descriptor: Int32

    init(creating path: String, size: Int) throws(CrashJournal.JournalError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CrashJournal.JournalError("cannot create \(path): errno \(errno)") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, ftruncate(descriptor, off_t(size)) == 0,
              let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), mapped != MAP_FAILED
        else {
            let reason = errno
            close(descriptor)
            unlink(path)
            throw CrashJournal.JournalError("cannot map \(path): errno \(reason)")
        }
        pointer = mapped
        self.size = size
        self.descriptor = descriptor
    }

    deinit {
        munmap(pointer, size)
        close(descriptor)
    }

    func store32(_ value: UInt32, at offset: Int) {
        pointer.storeBytes(of: value, toByteOffset: offset, as: UInt32.self)
    }

    func store64(_ value: UInt64, at offset: Int) {
        pointer.storeBytes(of: value, toByteOffset: offset, as: UInt64.self)
    }
}
