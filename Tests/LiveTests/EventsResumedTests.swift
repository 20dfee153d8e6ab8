import Contracts
import ParseWire
import Testing
@testable import LiveCore

/// After a lost broker connection the events sent meanwhile are gone for good (`LiveHubs.eventsResumed`): the hub
/// reads again what it kept from them. A session revoked meanwhile sees nothing private any more, a trigger
/// registered meanwhile is known, and objects and class rules are read afresh.
struct EventsResumedTests {
    @Test func whatMissedEventsWouldHaveChangedIsReadAgain() async throws {
        let backend = GatedTriggerList()
        let hub = TriggerListLoadTests.hub(backend)
        hub.onHub { hub.reloadTriggers() }
        #expect(await backend.answerNextLoad(with: []))
        let cat = ObjectCache.key("Cat", "a")
        _ = await TriggerListLoadTests.read(hub) {
            hub.sessions.states["r:revoked"] = .resolved(Identity(userId: "u1"))
            hub.objects[cat] = ["objectId": .string("a"), "votes": .number(1)]
            hub.rules["Cat"] = (rules: .open, loaded: .now)
            return true
        }
        hub.onHub { hub.eventsResumed() }
        #expect(await backend.answerNextLoad(with: [TriggerListLoadTests.afterEventOnCats]), "the trigger list was not reloaded")
        #expect(await TriggerListLoadTests.eventually(hub) {
            hub.liveTriggers == [TriggerListLoadTests.afterEventOnCats] && hub.sessions.current("r:revoked") == nil
        })
        #expect(backend.identityCalls.withLock { $0 } == ["r:revoked"])
        #expect(await TriggerListLoadTests.read(hub) { hub.objects[cat] == nil && hub.rules["Cat"] == nil })
        await hub.stop()
    }
}
