import Foundation
import Glibc
import Testing
@testable import Messaging

@Suite struct CrashJournalUnitTests {
    /// A directory of the test's own; the test removes it.
    static func scratchDirectory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A journal as a process that died would have left it: its commands in flight, and the time of its crash (0:
    /// it died without one, killed or stopped).
    static func writeDeadJournal(_ directory: String, service: String, crashedAt: Int64,
                                 entries: [(key: UInt64, suspect: Bool)], crashed: UInt64? = nil) throws -> String {
        var bytes = [UInt8](repeating: 0, count: CrashJournal.fileSize)
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: CrashJournal.magic, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: crashedAt, toByteOffset: CrashSignals.crashTimeOffset, as: Int64.self)
            for (slot, entry) in entries.enumerated() {
                let offset = CrashJournal.headerSize + slot * CrashJournal.slotSize
                raw.storeBytes(of: entry.key, toByteOffset: offset, as: UInt64.self)
                let flags = (entry.suspect ? CrashJournal.suspectFlag : 0) | (entry.key == crashed ? CrashJournal.crashedFlag : 0)
                raw.storeBytes(of: flags, toByteOffset: offset + CrashJournal.flagsOffset, as: UInt64.self)
            }
        }
        let path = "\(directory)/\(service).1.\(UInt32.random(in: 0...UInt32.max)).journal"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func theOnlyCommandInFlightAtACrashIsPoison() throws {
        let directory = Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Self.writeDeadJournal(directory, service: "posts", crashedAt: CrashJournal.now(), entries: [(42, false)])
        let journal = try CrashJournal(directory: directory, service: "posts")
        #expect(journal.verdict(for: 42) == .poison)
        #expect(journal.verdict(for: 43) == .unknown)
    }

    @Test func oneOfSeveralIsASuspectUntilItWasInFlightAtASecondCrash() throws {
        let directory = Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Self.writeDeadJournal(directory, service: "posts", crashedAt: CrashJournal.now(),
                                      entries: [(1, false), (2, false), (3, true)])
        let journal = try CrashJournal(directory: directory, service: "posts")
        #expect(journal.verdict(for: 1) == .suspect)
        #expect(journal.verdict(for: 3) == .poison)
    }

    @Test func theCommandWhoseTaskCrashedIsPoisonAndTheOthersInFlightAreNot() throws {
        let directory = Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Self.writeDeadJournal(directory, service: "posts", crashedAt: CrashJournal.now(),
                                      entries: [(1, false), (2, true), (3, false)], crashed: 3)
        let journal = try CrashJournal(directory: directory, service: "posts")
        #expect(journal.verdict(for: 3) == .poison)
        // Even one a crash before made a suspect: this crash was another command's.
        #expect(journal.verdict(for: 2) == .unknown)
        #expect(journal.verdict(for: 1) == .unknown)
    }

    /// What the signal handler does, asked from a handler's task: the slot that task began is the one marked.
    @Test func marksTheSlotOfTheTaskTheThreadRuns() async throws {
        let directory = Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try CrashJournal(directory: directory, service: "posts")
        // The other handler's task stays alive meanwhile, as a handler's does until it ends its slot: a task that
        // had finished could leave its address to the next one.
        let (begun, announce) = AsyncStream.makeStream(of: Int?.self)
        let (hold, release) = AsyncStream.makeStream(of: Void.self)
        let otherTask = Task {
            announce.yield(journal.begin(1, suspect: false))
            for await _ in hold {}
        }
        var announced = begun.makeAsyncIterator()
        let other = await announced.next() ?? nil
        let mine = await Task {
            let slot = journal.begin(2, suspect: false)
            CrashSignals.markSlots(of: CrashSignals.currentTask(), in: journal.base.pointer)
            return slot
        }.value
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: journal.path)))
        func flags(_ slot: Int?) -> UInt64 {
            bytes.withUnsafeBytes { raw in
                raw.loadUnaligned(fromByteOffset: CrashJournal.headerSize + (slot ?? 0) * CrashJournal.slotSize
                                      + CrashJournal.flagsOffset, as: UInt64.self)
            }
        }
        #expect(flags(mine) == CrashJournal.crashedFlag)
        #expect(flags(other) == 0)
        journal.end(mine)
        journal.end(other)
        release.finish()
        await otherTask.value
    }

    @Test func journalsOfProcessesThatDidNotCrashAreDeletedAndSayNothing() throws {
        let directory = Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let killed = try Self.writeDeadJournal(directory, service: "posts", crashedAt: 0, entries: [(42, false)])
        let old = try Self.writeDeadJournal(directory, service: "posts",
                                            crashedAt: CrashJournal.now() - CrashJournal.crashedJournalLifetime - 1,
                                            entries: [(42, false)])
        let otherService = try Self.writeDeadJournal(directory, service: "votes", crashedAt: CrashJournal.now(),
                                                     entries: [(42, false)])
        let journal = try CrashJournal(directory: directory, service: "posts")
        #expect(journal.verdict(for: 42) == .unknown)
        #expect(!FileManager.default.fileExists(atPath: killed))
        #expect(!FileManager.default.fileExists(atPath: old))
        #expect(FileManager.default.fileExists(atPath: otherService))
    }

    @Test func anotherReaderOfTheSameDeadJournalDoesNotHideIt() throws {
        let directory = Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try Self.writeDeadJournal(directory, service: "posts", crashedAt: CrashJournal.now(), entries: [(42, false)])
        // A replica reading it for another redelivered command at the moment this process asks.
        let otherReader = try #require(DeadJournal(path: path))
        defer { otherReader.close() }
        let journal = try CrashJournal(directory: directory, service: "posts")
        #expect(journal.verdict(for: 42) == .poison)
    }

    @Test func aLivingProcessJournalIsNotRead() throws {
        let directory = Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let living = try CrashJournal(directory: directory, service: "posts")
        let slot = living.begin(42, suspect: false)
        #expect(slot != nil)
        // Whatever it holds, a journal whose process (this one) still holds its lock is not read.
        let reader = try CrashJournal(directory: directory, service: "posts")
        #expect(reader.verdict(for: 42) == .unknown)
        living.end(slot)
    }

    @Test func theJournalFileHoldsTheCommandsInProgressAndIsRemovedWithTheJournal() throws {
        let directory = Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var journal: CrashJournal? = try CrashJournal(directory: directory, service: "posts")
        let path = try #require(journal?.path)
        let first = journal?.begin(7, suspect: false)
        let second = journal?.begin(9, suspect: true)
        journal?.end(first)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var keys: [UInt64: UInt64] = [:]
        bytes.withUnsafeBytes { raw in
            for slot in 0..<CrashJournal.slotCount {
                let offset = CrashJournal.headerSize + slot * CrashJournal.slotSize
                let key = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                if key != 0 { keys[key] = raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self) }
            }
        }
        #expect(keys == [9: 1])
        journal?.end(second)
        journal = nil
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func keysDifferForDifferentMessagesAndAreNeverZero() {
        let a = CrashJournal.key(type: "rest.v1", messageId: "r1", correlationId: "c1")
        #expect(a == CrashJournal.key(type: "rest.v1", messageId: "r1", correlationId: "c1"))
        #expect(a != CrashJournal.key(type: "rest.v1", messageId: "r1", correlationId: "c2"))
        #expect(CrashJournal.key(type: "ab", messageId: "c", correlationId: nil)
                != CrashJournal.key(type: "a", messageId: "bc", correlationId: nil))
        #expect(CrashJournal.key(type: nil, messageId: nil, correlationId: nil) != 0)
    }
}
