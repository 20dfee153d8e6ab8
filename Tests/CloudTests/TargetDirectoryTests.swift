@testable import CloudCore
import Contracts
import Testing

/// The directory's copy of the registrations: used only while its generation is the one committed, and trigger
/// lists always read anew.
struct TargetDirectoryTests {
    /// Answers with the registrations as they stand, and their generation; the first read can be held until the test
    /// lets it finish.
    final class Source: TargetSource, @unchecked Sendable {  // Safe: the test changes `hooks` between awaited steps only.
        private(set) var hooks: [Hook] = []
        private(set) var committed: Int64 = 0
        private(set) var reads = 0
        let (held, holding) = AsyncStream.makeStream(of: Void.self)
        let (release, releasing) = AsyncStream.makeStream(of: Void.self)
        var holdsFirstRead = false

        /// A change committed, as `HookStore` commits one: the registrations and their generation together.
        func change(_ hooks: [Hook]) {
            self.hooks = hooks
            committed += 1
        }

        func generation() async throws -> Int64 { committed }

        func snapshot() async throws -> TargetSnapshot {
            reads += 1
            let answer = TargetSnapshot(hooks: hooks, workers: [], generation: committed)
            if holdsFirstRead && reads == 1 {
                holding.yield()
                for await _ in release { break }
            }
            return answer
        }
    }

    static let probe = Hook(className: "Cat", triggerName: "beforeFind", url: "https://example.com/probe")
    static let probeKey = TriggerKey(className: "Cat", triggerName: .beforeFind)

    @Test func aReadBegunBeforeAChangeIsNotUsedAfterIt() async throws {
        let source = Source()
        source.holdsFirstRead = true
        let directory = TargetDirectory(source: source)
        let early = Task { try await directory.snapshot() }
        for await _ in source.held { break }
        // The registration commits while the read above is still out.
        source.change([Self.probe])
        source.releasing.yield()
        #expect(try await early.value.triggers.isEmpty)
        #expect(try await directory.snapshot().triggers[Self.probeKey] != nil)
        #expect(source.reads == 2)
    }

    @Test func aChangeCommittedThroughAnotherReplicaIsSeenByTheNextCall() async throws {
        let source = Source()
        let directory = TargetDirectory(source: source)
        #expect(try await directory.snapshot().triggerKeys.isEmpty)
        #expect(try await directory.snapshot().triggerKeys.isEmpty)
        #expect(source.reads == 1, "an unchanged generation keeps the copy")
        // Registered through another replica: this one dropped nothing, its copy's generation is older.
        source.change([Self.probe])
        #expect(try await directory.snapshot().triggers[Self.probeKey] != nil)
        #expect(source.reads == 2)
    }

    @Test func aTriggerListIsReadAnew() async throws {
        let source = Source()
        let directory = TargetDirectory(source: source)
        _ = try await directory.snapshot()
        #expect(try await directory.fresh().triggerKeys.isEmpty)
        #expect(source.reads == 2)
    }
}
