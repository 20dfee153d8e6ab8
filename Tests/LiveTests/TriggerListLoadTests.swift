import Contracts
import ParseWire
import Runtime
import Synchronization
import Testing
@testable import LiveCore

/// The hub's list of LiveQuery triggers follows cloud's registrations: a change announced while a load runs, or a
/// load cloud did not answer, loads the list again instead of keeping the old one until the next change.
struct TriggerListLoadTests {
    static let afterEventOnCats = TriggerKey(className: "Cat", triggerName: .afterEvent)

    @Test func aChangeAnnouncedWhileALoadRunsLoadsAgain() async throws {
        let backend = GatedTriggerList()
        let hub = Self.hub(backend)
        hub.onHub { hub.reloadTriggers() }
        #expect(await backend.answerNextLoad(with: []))
        hub.onHub { hub.reloadTriggers() }
        try await backend.waitForLoad()
        // Registered after the load under way read the list: the load's answer does not have it.
        hub.receive(routingKey: ListTriggers.changedRoutingKey, body: Array(#"{"data":{}}"#.utf8))
        _ = await Self.read(hub) { hub.triggerLoad.changedMeanwhile }
        #expect(await backend.answerNextLoad(with: []))
        #expect(await backend.answerNextLoad(with: [Self.afterEventOnCats]), "the change was dropped")
        #expect(await Self.eventually(hub) { hub.liveTriggers == [Self.afterEventOnCats] })
        await hub.stop()
    }

    @Test func aLoadCloudDidNotAnswerIsTriedAgain() async throws {
        let backend = GatedTriggerList()
        let hub = Self.hub(backend)
        hub.onHub { hub.reloadTriggers() }
        #expect(await backend.answerNextLoad(with: []))
        hub.receive(routingKey: ListTriggers.changedRoutingKey, body: Array(#"{"data":{}}"#.utf8))
        #expect(await backend.answerNextLoad(with: nil))
        #expect(await backend.answerNextLoad(with: nil))
        #expect(await backend.answerNextLoad(with: [Self.afterEventOnCats]), "the failed load was not tried again")
        #expect(await Self.eventually(hub) { hub.liveTriggers == [Self.afterEventOnCats] && hub.triggerLoad.failures == 0 })
        await hub.stop()
    }

    static func hub(_ backend: any LiveBackend) -> LiveQueryHub {
        let logger = Logger(service: "live-tests", level: .error)
        return LiveQueryHub(loop: SocketLoop(limits: SocketLoopLimits(), logger: logger), backend: backend,
                            keys: LiveKeys(applicationId: "app", masterKey: nil), triggerRetryDelay: .milliseconds(10),
                            logger: logger)
    }

    /// `read` run on the hub's thread, after everything queued there before it.
    static func read<T: Sendable>(_ hub: LiveQueryHub, _ read: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { answer in hub.onHub { answer.resume(returning: read()) } }
    }

    /// Whether `condition` holds on the hub's thread within five seconds.
    static func eventually(_ hub: LiveQueryHub, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
        for _ in 0..<500 {
            if await read(hub, condition) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

/// A backend whose trigger list loads wait until the test answers them, one at a time; nil answers as cloud not
/// answering does. Nothing else is asked of it in these tests.
final class GatedTriggerList: LiveBackendDouble {
    private let waiting = Mutex<[CheckedContinuation<Set<TriggerKey>?, Never>]>([])
    /// Sessions asked about; every one is answered as unknown.
    let identityCalls = Mutex<[String]>([])

    func triggerKeys() async throws -> Set<TriggerKey> {
        let answer = await withCheckedContinuation { load in waiting.withLock { $0.append(load) } }
        guard let answer else { throw ParseError(.connectionFailed, "cloud did not answer") }
        return answer
    }

    /// Waits up to five seconds for a load to ask.
    func waitForLoad() async throws {
        for _ in 0..<500 where waiting.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        try #require(!waiting.withLock { $0.isEmpty }, "no load asked for the list")
    }

    /// Answers the next load with `keys` once one asks; false when none asked within five seconds.
    func answerNextLoad(with keys: Set<TriggerKey>?) async -> Bool {
        for _ in 0..<500 {
            let load = waiting.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let load {
                load.resume(returning: keys)
                return true
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    func identity(sessionToken: String) async throws -> Identity {
        identityCalls.withLock { $0.append(sessionToken) }
        throw ParseError(.invalidSessionToken, "Invalid session token")
    }
}
