import Contracts
import ParseWire
import Runtime
import Synchronization
import Testing
@testable import LiveCore

/// The hub asks auth about at most `LiveQueryHub.sessionChecksAtOnce` sessions at once: a role change re-checks
/// every known session, and asked all at once they would queue ahead of every other client's look-ups in auth.
struct SessionChecksTests {
    @Test func aRoleChangeChecksEverySessionAFewAtATimeAndAFirstCheckGoesAhead() async throws {
        let backend = GatedSessions()
        let hub = TriggerListLoadTests.hub(backend)
        let tokens = (0..<40).map { "r:\($0)" }
        _ = await TriggerListLoadTests.read(hub) {
            for (index, token) in tokens.enumerated() {
                hub.sessions.retain(token)
                hub.sessions.states[token] = .resolved(Identity(userId: "u\(index)"))
            }
            return true
        }
        hub.onHub { hub.refreshRoles() }
        let limit = LiveQueryHub.sessionChecksAtOnce
        try #require(limit < tokens.count)
        #expect(await backend.waitForAsking(limit).count == limit)
        // A client connecting now waits for its own check: it goes ahead of the re-checks still waiting.
        let newcomer = Mutex<Identity??>(nil)
        hub.onHub {
            hub.sessions.retain("r:new")
            hub.withSession("r:new") { identity in newcomer.withLock { $0 = .some(identity) } }
        }
        _ = await TriggerListLoadTests.read(hub) { true }
        let first = try #require(backend.asking().first)
        backend.answer(first, with: Identity(userId: "again"))
        #expect(await backend.waitForAsking(limit).contains("r:new"), "the first check waited behind the re-checks")
        backend.answer("r:new", with: Identity(userId: "newcomer"))
        #expect(await TriggerListLoadTests.eventually(hub) { newcomer.withLock { $0 } == .some(Identity(userId: "newcomer")) })

        var answered = Set([first])
        while answered.count < tokens.count {
            let asking = await backend.waitForAsking(1)
            let next = try #require(asking.first { !answered.contains($0) })
            backend.answer(next, with: Identity(userId: "again"))
            answered.insert(next)
        }
        #expect(backend.mostAtOnce.withLock { $0 } == limit)
        #expect(backend.asked.withLock { $0 }.sorted() == (tokens + ["r:new"]).sorted(), "each session was asked about once")
        #expect(await TriggerListLoadTests.eventually(hub) {
            tokens.allSatisfy { hub.sessions.current($0) == Identity(userId: "again") } && hub.sessionChecks.running.isEmpty
        })
        await hub.stop()
    }

    /// A revocation that arrives while a check of the session is under way: that check's answer may have been made
    /// before the revocation, so the session sees nothing private until a second check answers.
    @Test func aRevocationDuringACheckIsFollowedByAnotherCheck() async throws {
        let backend = GatedSessions()
        let hub = TriggerListLoadTests.hub(backend)
        let user = Identity(userId: "u1")
        _ = await TriggerListLoadTests.read(hub) {
            hub.sessions.retain("r:a")
            hub.sessions.states["r:a"] = .resolved(user)
            return true
        }
        hub.onHub { hub.refreshRoles() }
        #expect(await backend.waitForAsking(1) == ["r:a"])
        hub.receive(routingKey: AuthEventPayloads.SessionRevoked.routingKey, body: Array(#"{"data":{"userId":"u1"}}"#.utf8))
        #expect(await TriggerListLoadTests.eventually(hub) { hub.sessions.current("r:a") == nil })
        backend.answer("r:a", with: user)
        #expect(await backend.waitForAsking(1) == ["r:a"], "the answer from before the revocation was trusted")
        #expect(await TriggerListLoadTests.read(hub) { hub.sessions.current("r:a") } == nil)
        backend.answer("r:a", with: nil)
        #expect(await TriggerListLoadTests.eventually(hub) {
            if case .resolved(nil) = hub.sessions.states["r:a"] { return true } else { return false }
        })
        #expect(backend.asked.withLock { $0 } == ["r:a", "r:a"])
        await hub.stop()
    }

    /// What `SessionChecks` said to each step, as text: `+a` a check started at once, `=a` one that waits or
    /// runs already, `a:b,c` a check ended and the ones to start, `a!:a` an answer that predates a change.
    static func steps(_ checks: inout SessionChecks, _ steps: [String]) -> [String] {
        steps.map { step in
            let token = String(step.dropFirst())
            switch step.first {
            case "?": return (checks.ask(token, urgent: false) ? "+" : "=") + token
            case "!": return (checks.ask(token, urgent: true) ? "+" : "=") + token
            case "^":
                checks.hurry(token)
                return step
            default:
                let ended = checks.ended(token)
                return token + (ended.stale ? "!" : "") + ":" + ended.next.joined(separator: ",")
            }
        }
    }

    /// The same for a first check: the session's user is not known until it answers, so a revocation of anyone
    /// checks it again before its client gets an identity.
    @Test func aRevocationDuringAFirstCheckIsFollowedByAnotherCheck() async throws {
        let backend = GatedSessions()
        let hub = TriggerListLoadTests.hub(backend)
        let seen = Mutex<[Identity?]>([])
        hub.onHub {
            hub.sessions.retain("r:b")
            hub.withSession("r:b") { identity in seen.withLock { $0.append(identity) } }
        }
        #expect(await backend.waitForAsking(1) == ["r:b"])
        hub.receive(routingKey: AuthEventPayloads.SessionRevoked.routingKey, body: Array(#"{"data":{"userId":"u1"}}"#.utf8))
        _ = await TriggerListLoadTests.read(hub) { true }
        backend.answer("r:b", with: Identity(userId: "u1"))
        #expect(await backend.waitForAsking(1) == ["r:b"], "the answer from before the revocation was trusted")
        #expect(seen.withLock { $0 }.isEmpty)
        backend.answer("r:b", with: nil)
        #expect(await TriggerListLoadTests.eventually(hub) { seen.withLock { $0 } == [nil] })
        await hub.stop()
    }

    /// `?a` asks for a re-check of `a`, `!a` for an urgent check, `^a` hurries `a`, `-a` ends `a`'s check.
    @Test func aTokenAskedAboutWhileItWaitsWaitsOnceAndUrgentOnesGoFirst() {
        var checks = SessionChecks(limit: 1)
        let said = Self.steps(&checks, ["?a", "?b", "?b", "!c", "-a", "-c", "-b"])
        #expect(said == ["+a", "=b", "=b", "=c", "a:c", "c:b", "b:"])
        #expect(checks.running.isEmpty && checks.waiting == 0)
    }

    @Test func aRunningTokenAskedAboutAgainRunsOnceMore() {
        var checks = SessionChecks(limit: 2)
        let said = Self.steps(&checks, ["?a", "?a", "!a", "-a", "-a"])
        #expect(said == ["+a", "=a", "=a", "a!:a", "a:"])
        #expect(checks.running.isEmpty)
    }

    @Test func aWaitingReCheckHurriedGoesAheadOnce() {
        var checks = SessionChecks(limit: 1)
        let said = Self.steps(&checks, ["?a", "?b", "?c", "?d", "^d", "^d", "-a", "-d", "-b", "-c"])
        #expect(said == ["+a", "=b", "=c", "=d", "^d", "^d", "a:d", "d:b", "b:c", "c:"])
        #expect(checks.waiting == 0)
    }
}

/// A backend whose session checks wait until the test answers them; it counts how many run at once.
final class GatedSessions: LiveBackendDouble {
    private let pending = Mutex<[(token: String, answer: CheckedContinuation<Identity?, Never>)]>([])
    let asked = Mutex<[String]>([])
    let mostAtOnce = Mutex(0)

    func identity(sessionToken: String) async throws -> Identity {
        let identity = await withCheckedContinuation { answer in
            pending.withLock { pending in
                pending.append((sessionToken, answer))
                mostAtOnce.withLock { $0 = max($0, pending.count) }
            }
            asked.withLock { $0.append(sessionToken) }
        }
        guard let identity else { throw ParseError(.invalidSessionToken, "Invalid session token") }
        return identity
    }

    /// The tokens whose checks wait for an answer.
    func asking() -> [String] { pending.withLock { $0.map(\.token) } }

    /// The tokens asked about once `count` checks wait (or after five seconds).
    func waitForAsking(_ count: Int) async -> [String] {
        for _ in 0..<500 where asking().count < count { try? await Task.sleep(for: .milliseconds(10)) }
        return asking()
    }

    /// Answers the check of `token` (nil: not a session).
    func answer(_ token: String, with identity: Identity?) {
        let check = pending.withLock { pending in pending.firstIndex { $0.token == token }.map { pending.remove(at: $0) } }
        check?.answer.resume(returning: identity)
    }

}
