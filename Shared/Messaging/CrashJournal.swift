import Glibc
import Runtime
import Synchronization

/// Which commands a process is handling, kept in a small memory-mapped file that outlives the process, so that a
/// command whose handling crashed it cannot crash it, or another replica on the host, a second time.
///
/// A crash (a trap, `SIGSEGV`, `abort`) is marked in the file by `CrashSignals` before the process dies; a
/// `kill -9` or a clean exit leaves no mark. The broker then delivers the commands the dead process held again,
/// flagged redelivered; for each such one, `verdict` reads the journals of dead processes of the same service in
/// the directory. A command whose task the crashing thread was running (each slot keeps its handler's task, and the
/// signal handler marks the slot of the task it interrupted) is the cause, as is one that was the only one in
/// flight at a crash, or in flight at two crashes: it goes to the dead-letter queue without being run. One that
/// was in flight at a crash beside others, none marked, is a suspect: run again, its slot says so, and if the
/// process crashes again with it, the next verdict is final. (A crash in a child task of a handler marks no slot.)
/// Finding a journal costs nothing per command (two stores into the mapping); only redeliveries read files.
public final class CrashJournal: Sendable {
    /// What a redelivered command's past says.
    public enum Verdict: Sendable, Equatable {
        /// No dead process crashed while handling it.
        case unknown
        /// In flight, among others, when a process crashed: run it, marked.
        case suspect
        /// Crashed a process on its own or twice: never run again.
        case poison
    }

    static let magic: UInt32 = 0x5041_524A // "PARJ"
    static let slotCount = 4096
    static let headerSize = 64
    /// A slot: the command's key (0: free), its flags, its handler's task.
    static let slotSize = 24
    static let flagsOffset = 8
    static let taskOffset = 16
    static let suspectFlag: UInt64 = 1
    /// Set by the signal handler: the crashing thread was running this slot's task.
    static let crashedFlag: UInt64 = 2
    static var fileSize: Int { headerSize + slotCount * slotSize }
    /// A crashed journal is read for this long after the crash: the broker redelivers at once, the restarted
    /// process takes the commands within its start-up.
    static let crashedJournalLifetime: Int64 = 600

    let path: String
    private let directory: String
    private let prefix: String
    let base: MappedFile
    private let free: Mutex<[Int]>

    /// Opens a journal of its own for `service` in `directory` (made if missing); nil, with the reason logged,
    /// when the file cannot be made: the process then runs without the protection.
    public static func open(directory: String, service: String, logger: Logger) -> CrashJournal? {
        do {
            return try CrashJournal(directory: directory, service: service)
        } catch {
            logger.warning("no crash journal: a command that crashes this process may crash it again",
                           ["directory": directory, "error": "\(error)"])
            return nil
        }
    }

    init(directory: String, service: String) throws(JournalError) {
        try Self.makeDirectory(directory)
        self.directory = directory
        prefix = service + "."
        path = "\(directory)/\(service).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).journal"
        base = try MappedFile(creating: path, size: Self.fileSize)
        free = Mutex(Array((0..<Self.slotCount).reversed()))
        base.store32(Self.magic, at: 0)
        base.store32(UInt32(bitPattern: getpid()), at: 8)
        CrashSignals.install(marking: base.pointer)
    }

    deinit {
        CrashSignals.forget(base.pointer)
        unlink(path)
    }

    /// The key of a delivery: the same for every delivery of one message, and (nearly) never two messages'.
    public static func key(type: String?, messageId: String?, correlationId: String?) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in [type, messageId, correlationId] {
            for byte in (part ?? "").utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            hash = (hash ^ 0xff) &* 0x100_0000_01b3
        }
        return hash == 0 ? 1 : hash
    }

    /// Records that the command `key` is being handled; nil when every slot is taken (it then runs unrecorded).
    public func begin(_ key: UInt64, suspect: Bool) -> Int? {
        guard let slot = free.withLock({ $0.popLast() }) else { return nil }
        let offset = Self.headerSize + slot * Self.slotSize
        base.store64(suspect ? Self.suspectFlag : 0, at: offset + Self.flagsOffset)
        base.store64(CrashSignals.currentTask(), at: offset + Self.taskOffset)
        base.store64(key, at: offset)
        return slot
    }

    public func end(_ slot: Int?) {
        guard let slot else { return }
        base.store64(0, at: Self.headerSize + slot * Self.slotSize)
        free.withLock { $0.append(slot) }
    }

    /// What the journals of this service's dead processes say of `key`. Journals of processes that died without
    /// a crash are deleted on the way, and crashed ones once they are old.
    public func verdict(for key: UInt64) -> Verdict {
        var verdict = Verdict.unknown
        for name in Self.entries(of: directory) where name.hasPrefix(prefix) && name.hasSuffix(".journal") {
            let file = "\(directory)/\(name)"
            guard file != path, let dead = DeadJournal(path: file) else { continue }
            defer { dead.close() }
            guard dead.crashedAt != 0, Self.now() - dead.crashedAt < Self.crashedJournalLifetime else {
                dead.remove()
                continue
            }
            guard let entry = dead.entries.first(where: { $0.key == key }) else { continue }
            if let culprit = dead.entries.first(where: \.crashed) {
                if culprit.key == key { return .poison }
                continue
            }
            if dead.entries.count == 1 || entry.suspect { return .poison }
            verdict = .suspect
        }
        return verdict
    }

    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec)
    }

    private static func makeDirectory(_ directory: String) throws(JournalError) {
        var path = ""
        for component in directory.split(separator: "/", omittingEmptySubsequences: false) {
            path += path.isEmpty && component.isEmpty ? "/" : (path.hasSuffix("/") || path.isEmpty ? "" : "/") + component
            guard !component.isEmpty else { continue }
            if mkdir(path, 0o755) != 0 && errno != EEXIST { throw JournalError("cannot make \(path): errno \(errno)") }
        }
    }

    private static func entries(of directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            names.append(name)
        }
        return names
    }

    struct JournalError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
