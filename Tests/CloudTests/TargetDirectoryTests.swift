@testable import CloudCore
import Contracts
import Testing

/// The directory's copy of the registrations: never older than a change this process made, and trigger lists
/// always read anew.
struct TargetDirectoryTests {
    /// Answers with the registrations as they stand; the first read can be held until the test lets it finish.
    final class Source: TargetSource, @unchecked Sendable {  // Safe: the test changes `hooks` between awaited steps only.
        var hooks: [Hook] = []
        private(set) var reads = 0
        let (held, holding) = AsyncStream.makeStream(of: Void.self)
        let (release, releasing) = AsyncStream.makeStream(of: Void.self)
        var holdsFirstRead = false

        func snapshot() async throws -> TargetSnapshot {
            reads += 1
            let answer = TargetSnapshot(hooks: hooks, workers: [])
            if holdsFirstRead && reads == 1 {
                holding.yield()
                for await _ in release { break }
            }
            return answer
        }
    }

    static let probe = Hook(className: "Cat", triggerName: "beforeFind", url: "https://example.com/probe")
    static let probeKey = TriggerKey(className: "Cat", triggerName: .beforeFind)

    @Test func aReadBegunBeforeAChangeIsNotKept() async throws {
        let source = Source()
        source.holdsFirstRead = true
        let directory = TargetDirectory(source: source, maxAge: .seconds(60))
        let early = Task { try await directory.snapshot() }
        for await _ in source.held { break }
        // The registration commits and this process drops its copy while the read above is still out.
        source.hooks = [Self.probe]
        await directory.invalidate()
        source.releasing.yield()
        #expect(try await early.value.triggers.isEmpty)
        #expect(try await directory.snapshot().triggers[Self.probeKey] != nil)
        #expect(source.reads == 2)
    }

    @Test func aTriggerListIsReadAnewWhateverTheCopysAge() async throws {
        let source = Source()
        let directory = TargetDirectory(source: source, maxAge: .seconds(60))
        #expect(try await directory.snapshot().triggerKeys.isEmpty)
        // Registered through another replica: this one's copy is still young.
        source.hooks = [Self.probe]
        #expect(try await directory.snapshot().triggerKeys.isEmpty)
        #expect(try await directory.fresh().triggerKeys == [Self.probeKey])
        // And the fresh read is the copy from then on.
        #expect(try await directory.snapshot().triggers[Self.probeKey] != nil)
        #expect(source.reads == 2)
    }
}
