import Testing
@testable import Messaging

@Suite struct ConnectionLifecycleUnitTests {
    @Test func eachAttemptHasANewGeneration() {
        var lifecycle = ConnectionLifecycle(nodes: 1, jitter: .none)
        #expect(lifecycle.attempt().generation == 1)
        _ = lifecycle.connectFailed()
        #expect(lifecycle.attempt().generation == 2)
        lifecycle.connected()
        lifecycle.connectionLost()
        #expect(lifecycle.attempt().generation == 3)
    }

    @Test func theBackoffDoublesToTwoSecondsAndAConnectionResetsIt() {
        var lifecycle = ConnectionLifecycle(nodes: 1, jitter: .none)
        var pauses: [Double] = []
        for _ in 0..<7 {
            _ = lifecycle.attempt()
            pauses.append(lifecycle.connectFailed() ?? -1)
        }
        #expect(pauses == [0.1, 0.2, 0.4, 0.8, 1.6, 2, 2])
        lifecycle.connected()
        #expect(lifecycle.isConnected)
        _ = lifecycle.attempt()
        #expect(lifecycle.connectFailed() == 0.1)
    }

    @Test func onAClusterEveryNodeIsTriedBeforeAPause() {
        var lifecycle = ConnectionLifecycle(nodes: 3, jitter: .none)
        #expect(lifecycle.attempt().node == 0)
        #expect(lifecycle.connectFailed() == nil)
        #expect(lifecycle.attempt().node == 1)
        #expect(lifecycle.connectFailed() == nil)
        #expect(lifecycle.attempt().node == 2)
        #expect(lifecycle.connectFailed() == 0.1)
        #expect(lifecycle.attempt().node == 0)
    }

    @Test func aLostConnectionMovesToTheNextNodeWithoutAPause() {
        var lifecycle = ConnectionLifecycle(nodes: 2, jitter: .none)
        _ = lifecycle.attempt()
        lifecycle.connected()
        #expect(lifecycle.connections == 1)
        lifecycle.connectionLost()
        #expect(!lifecycle.isConnected)
        #expect(lifecycle.attempt().node == 1)
        lifecycle.connected()
        #expect(lifecycle.connections == 2)
    }

    @Test func onlyTheFirstAndTheLongestFailuresOfOneNodeAreLogged() {
        var lifecycle = ConnectionLifecycle(nodes: 1, jitter: .none)
        var logged: [Bool] = []
        for _ in 0..<7 {
            _ = lifecycle.attempt()
            logged.append(lifecycle.failureIsWorthLogging)
            _ = lifecycle.connectFailed()
        }
        #expect(logged == [true, false, false, false, false, true, true])
    }

    @Test func jitterShortensEachPauseByAtMostItsFractionAndFollowsItsSeed() {
        func pauses(seed: UInt64) -> [Double] {
            var lifecycle = ConnectionLifecycle(nodes: 1, jitter: BackoffJitter(fraction: 0.2, seed: seed))
            return (0..<7).map { _ in
                _ = lifecycle.attempt()
                return lifecycle.connectFailed() ?? -1
            }
        }
        let uncapped = [0.1, 0.2, 0.4, 0.8, 1.6, 2, 2]
        let jittered = pauses(seed: 42)
        #expect(jittered == pauses(seed: 42))
        #expect(jittered != pauses(seed: 43))
        for (pause, full) in zip(jittered, uncapped) {
            #expect(pause <= full && pause >= full * 0.8)
        }
        #expect(jittered != uncapped)
    }
}
