import Contracts
import ParseWire
import Runtime
import ServiceKit
import Synchronization
import Testing

struct TriggerRegistryTests {
    static let logger = Logger(service: "servicekit-tests", level: .error)

    @Test func aLoadedListAnswersFromMemory() async {
        let runner = InMemoryTriggerRunner()
        runner.register(.beforeSave, "Cat")
        let registry = TriggerRegistry(runner: runner, logger: Self.logger)
        #expect(await registry.reload() != nil)
        for _ in 0..<5 {
            #expect(await registry.triggers(of: "Cat") == [.beforeSave])
            #expect(await registry.triggers(of: "Dog").isEmpty)
        }
        #expect(runner.listCount == 1)
    }

    @Test func beforeAnyListEveryClassHasNoTriggersAndNothingIsAsked() async {
        let runner = InMemoryTriggerRunner()
        runner.register(.beforeSave, "Cat")
        let registry = TriggerRegistry(runner: runner, logger: Self.logger)
        #expect(await registry.triggers(of: "Cat").isEmpty)
        #expect(runner.listCount == 0)
        #expect(!registry.isLoaded)
    }

    @Test func aChangeMakesTheNextLookUpReload() async {
        let runner = InMemoryTriggerRunner()
        let registry = TriggerRegistry(runner: runner, logger: Self.logger)
        await registry.reload()
        #expect(await registry.triggers(of: "Cat").isEmpty)
        runner.register(.afterSave, "Cat")
        registry.invalidate()
        #expect(await registry.triggers(of: "Cat") == [.afterSave])
        #expect(runner.listCount == 2)
    }

    @Test func cloudUnreachableAfterAChangeKeepsTheLastList() async {
        let runner = InMemoryTriggerRunner()
        runner.register(.beforeDelete, "Cat")
        let registry = TriggerRegistry(runner: runner, logger: Self.logger)
        await registry.reload()
        runner.setReachable(false)
        registry.invalidate()
        #expect(await registry.triggers(of: "Cat") == [.beforeDelete])
        // The failed reload is retried in the background, not by every look-up.
        let asked = runner.listCount
        #expect(await registry.triggers(of: "Cat") == [.beforeDelete])
        #expect(runner.listCount == asked)
    }

    /// A request looks the list up, then the list reloads with a registration answered meanwhile: the request's
    /// statement reads the new generation, and the request must run again rather than pass with the list it used.
    @Test func aRequestIsCheckedAgainstTheListItDecidedWithNotOneLoadedSince() async throws {
        let runner = InMemoryTriggerRunner()
        runner.register(.afterSave, "Dog")
        let registry = TriggerRegistry(runner: runner, logger: Self.logger)
        await registry.reload()
        let cloud = CloudTriggers(service: .posts, registry: registry, runner: runner)
        let runs = Mutex(0)
        let seen = try await cloud.withCurrentRegistrations {
            let run = runs.withLock { runs in
                runs += 1
                return runs
            }
            let triggers = await cloud.triggers(of: "Cat")
            if run == 1 {
                runner.register(.beforeSave, "Cat")
                await registry.reload()
            }
            try cloud.requireCurrent(runner.generation)
            return triggers
        }
        #expect(seen == [.beforeSave])
        #expect(runs.withLock { $0 } == 2)
    }
}
