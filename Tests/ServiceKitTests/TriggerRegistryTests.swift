import Contracts
import ParseWire
import Runtime
import ServiceKit
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
}
