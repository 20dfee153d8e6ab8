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

    /// Registrations answered before the request, but the service's list is older: the trigger must not run with
    /// the old list and then again when the write's check finds it stale. `run` reads the stored generation first,
    /// so the handling runs again before the trigger, and the trigger runs once.
    @Test func aTriggerRunsOnceWhenTheListWasStaleBeforeTheRequest() async throws {
        let runner = InMemoryTriggerRunner()
        runner.register(.beforeSave, "Cat")
        let registry = TriggerRegistry(runner: runner, logger: Self.logger)
        await registry.reload()
        runner.register(.afterSave, "Cat")
        let stored = runner.generation
        let cloud = CloudTriggers(service: .posts, registry: registry, runner: runner, storedGeneration: { stored })
        let runs = Mutex(0)
        let seen = try await cloud.withCurrentRegistrations {
            runs.withLock { $0 += 1 }
            let triggers = await cloud.triggers(of: "Cat")
            _ = try await cloud.run(Self.beforeSave, requestId: "r1", identity: .master)
            // The write's own check, as its transaction's first statement makes it.
            try cloud.requireCurrent(stored)
            return triggers
        }
        #expect(seen == [.beforeSave, .afterSave])
        #expect(runs.withLock { $0 } == 2)
        #expect(runner.calls.count == 1)
    }

    /// Once a check has read a generation no newer than the list, a registration answered later came after the
    /// request: the handling goes on with its list, and a trigger it ran is not run again.
    @Test func aRegistrationAnsweredAfterAPassedCheckDoesNotRunTheHandlingAgain() async throws {
        let runner = InMemoryTriggerRunner()
        runner.register(.beforeSave, "Cat")
        let registry = TriggerRegistry(runner: runner, logger: Self.logger)
        await registry.reload()
        let cloud = CloudTriggers(service: .posts, registry: registry, runner: runner,
                                  storedGeneration: { runner.generation })
        let runs = Mutex(0)
        try await cloud.withCurrentRegistrations {
            runs.withLock { $0 += 1 }
            _ = try await cloud.run(Self.beforeSave, requestId: "r1", identity: .master)
            runner.register(.afterSave, "Cat")
            try cloud.requireCurrent(runner.generation)
        }
        #expect(runs.withLock { $0 } == 1)
        #expect(runner.calls.count == 1)
        // Outside a request's handling every newer generation is stale.
        #expect(throws: StaleTriggerList.self) { try cloud.requireCurrent(runner.generation) }
    }

    static let beforeSave = RunTrigger(key: TriggerKey(className: "Cat", triggerName: .beforeSave))
}
