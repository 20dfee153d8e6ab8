import Testing
@testable import Messaging

@Suite struct AMQPConnectionStateUnitTests {
    typealias State = AMQPConnectionState<String, String>

    private func state(nodes: Int = 1, autoAcks: [Bool] = [false], replies: Bool = true,
                       confirms: Bool = true) -> State {
        State(setup: .init(nodes: nodes, autoAcks: autoAcks, receivesReplies: replies, confirmsPublishes: confirms),
              jitter: .none)
    }

    /// Runs a whole successful attempt; returns whether it counted as a reconnect.
    @discardableResult
    private func connect(_ state: inout State, consuming: Bool = true) -> Bool {
        _ = state.attempt()
        for step in state.sessionOpened(consuming: consuming) { state.stepDone(step) }
        return state.connected()
    }

    private func call(_ waiter: String, deadline: UInt64) -> State.Call {
        State.Call(waiter: waiter, deadline: deadline, queue: "q", milliseconds: 10)
    }

    // MARK: Handshake and channels

    @Test func theHandshakeDeclaresConsumesAndOpensTheConfirmChannel() {
        var state = state(autoAcks: [false, true])
        #expect(state.phase == .disconnected)
        let attempt = state.attempt()
        #expect(attempt.generation == 1 && attempt.node == 0)
        #expect(state.phase == .connecting(generation: 1, node: 0))
        let steps = state.sessionOpened(consuming: true)
        #expect(steps == [.declareTopology, .setPrefetch, .consumeReplies, .consume(index: 0), .consume(index: 1),
                          .enableConfirms])
        #expect(state.channels == .init(main: .open))
        for step in steps { state.stepDone(step) }
        #expect(state.channels == .init(main: .open, confirms: .confirming, consuming: [0, 1], consumingReplies: true))
        let reconnect = state.connected()
        #expect(!reconnect)
        #expect(state.phase == .open(generation: 1, node: 0))
        #expect(state.isOpen)
    }

    @Test func aConnectionWithoutConsumersSetsNoPrefetchAndCancelledConsumersStayCancelled() {
        var bare = state(autoAcks: [], replies: false, confirms: false)
        _ = bare.attempt()
        #expect(bare.sessionOpened(consuming: true) == [.declareTopology])
        var consumer = state()
        connect(&consumer)
        consumer.consumersCancelled()
        #expect(consumer.channels.consuming.isEmpty && consumer.channels.consumingReplies)
        _ = consumer.connectionLost()
        _ = consumer.attempt()
        #expect(consumer.sessionOpened(consuming: false) == [.declareTopology, .setPrefetch, .consumeReplies,
                                                              .enableConfirms])
    }

    // MARK: Reconnect and backoff

    @Test func failedAttemptsBackOffExponentiallyToTheCapAndAConnectionResetsIt() {
        var state = state()
        var pauses: [Double?] = []
        for _ in 0..<7 {
            _ = state.attempt()
            pauses.append(state.connectFailed().pauseSeconds)
            #expect(state.phase == .backingOff(seconds: pauses.last!!))
            #expect(state.channels == .init())
            state.backoffElapsed()
            #expect(state.phase == .disconnected)
        }
        #expect(pauses == [0.1, 0.2, 0.4, 0.8, 1.6, 2, 2])
        connect(&state)
        _ = state.connectionLost()
        _ = state.attempt()
        #expect(state.connectFailed().pauseSeconds == 0.1)
    }

    @Test func onlyTheFirstAndTheLongestFailuresAreWorthAWarning() {
        var state = state()
        let warned = (0..<7).map { _ in
            _ = state.attempt()
            return state.connectFailed().worthLogging
        }
        #expect(warned == [true, false, false, false, false, true, true])
    }

    @Test func jitterComesFromTheInjectedSeed() {
        func pauses(seed: UInt64) -> [Double] {
            var state = State(setup: .init(), jitter: BackoffJitter(fraction: 0.5, seed: seed))
            return (0..<4).map { _ in
                _ = state.attempt()
                return state.connectFailed().pauseSeconds ?? -1
            }
        }
        #expect(pauses(seed: 7) == pauses(seed: 7))
        #expect(pauses(seed: 7) != [0.1, 0.2, 0.4, 0.8])
        #expect(zip(pauses(seed: 7), [0.1, 0.2, 0.4, 0.8]).allSatisfy { $0 <= $1 && $0 >= $1 / 2 })
    }

    @Test func onAClusterAFailedNodeIsFollowedByTheNextAtOnce() {
        var state = state(nodes: 2)
        #expect(state.attempt().node == 0)
        #expect(state.connectFailed() == .init(pauseSeconds: nil, worthLogging: true))
        #expect(state.phase == .disconnected)
        #expect(state.attempt().node == 1)
        #expect(state.connectFailed().pauseSeconds == 0.1)
    }

    @Test func aLostConnectionFailsEverythingInFlightAndReconnectsToTheNextNode() {
        var state = state(nodes: 3)
        connect(&state)
        state.callSent(call("call-1", deadline: 1_000), correlationId: "c1")
        state.callSent(call("call-2", deadline: 1_000), correlationId: "c2")
        state.publishedConfirmed(count: 2, waiter: "events")
        state.delivered(tag: 1, consumer: 0)
        let teardown = state.connectionLost()
        #expect(Set(teardown.calls) == ["call-1", "call-2"])
        #expect(teardown.confirms == ["events"])
        #expect(state.phase == .disconnected)
        #expect(state.channels == .init())
        #expect(!state.hasCallsWaiting && state.unsettledCount == 0)
        #expect(state.replyArrived(correlationId: "c1") == nil)
        let attempt = state.attempt()
        #expect(attempt.generation == 2 && attempt.node == 1)
        for step in state.sessionOpened(consuming: true) { state.stepDone(step) }
        let reconnect = state.connected()
        #expect(reconnect)
        #expect(state.connections == 2)
    }

    @Test func closingStillFlushesAcksAndClosedFailsWhatIsLeft() {
        var state = state()
        connect(&state)
        state.callSent(call("late", deadline: 1_000), correlationId: "c")
        state.closing()
        #expect(state.phase == .closing)
        #expect(state.isCurrent(generation: 1))
        let teardown = state.closed()
        #expect(teardown.calls == ["late"])
        #expect(state.phase == .closed)
        #expect(!state.isCurrent(generation: 1))
    }

    // MARK: Publisher confirms

    @Test func confirmsSettleSinglyOrSeveralAtOnce() {
        var state = state()
        connect(&state)
        state.publishedConfirmed(count: 1, waiter: "a")      // tag 1
        state.publishedConfirmed(count: 2, waiter: "b")      // tags 2, 3
        state.publishedConfirmed(count: 1, waiter: "c")      // tag 4
        #expect(state.confirmed(tag: 1, multiple: false, negative: false).map(\.waiter) == ["a"])
        #expect(state.confirmed(tag: 2, multiple: false, negative: false).isEmpty)
        let settled = state.confirmed(tag: 4, multiple: true, negative: false)
        #expect(settled.map(\.waiter) == ["b", "c"])
        #expect(settled.allSatisfy { !$0.refused })
    }

    @Test func aNackRefusesTheWaitersItCovers() {
        var state = state()
        connect(&state)
        state.publishedConfirmed(count: 2, waiter: "a")      // tags 1, 2
        state.publishedConfirmed(count: 1, waiter: "b")      // tag 3
        #expect(state.confirmed(tag: 1, multiple: false, negative: true).isEmpty)
        let settled = state.confirmed(tag: 3, multiple: true, negative: false)
        #expect(settled.map(\.waiter) == ["a", "b"])
        #expect(settled.map(\.refused) == [true, false])
    }

    @Test func confirmTagsStartAgainOnANewSession() {
        var state = state()
        connect(&state)
        state.publishedConfirmed(count: 3, waiter: "old")
        _ = state.connectionLost()
        connect(&state)
        state.publishedConfirmed(count: 1, waiter: "new")
        #expect(state.confirmed(tag: 1, multiple: false, negative: false).map(\.waiter) == ["new"])
    }

    // MARK: The RPC call table

    @Test func aReplyIsMatchedToItsCallByCorrelationIdOnce() {
        var state = state()
        connect(&state)
        state.callSent(call("first", deadline: 1_000), correlationId: "c1")
        state.callSent(call("second", deadline: 1_000), correlationId: "c2")
        #expect(state.replyArrived(correlationId: "c2")?.waiter == "second")
        #expect(state.replyArrived(correlationId: "c2") == nil)
        #expect(state.replyArrived(correlationId: nil) == nil)
        #expect(state.replyArrived(correlationId: "unknown") == nil)
        #expect(state.hasCallsWaiting)
        #expect(state.replyArrived(correlationId: "c1")?.waiter == "first")
        #expect(!state.hasCallsWaiting)
    }

    @Test func callsPastTheirDeadlineTimeOutAtTheNextSweep() {
        var state = State(setup: .init(receivesReplies: true), jitter: .none, now: 0)
        connect(&state)
        let sweep = State.sweepInterval
        state.callSent(call("soon", deadline: sweep * 2), correlationId: "a")
        state.callSent(call("later", deadline: sweep * 10), correlationId: "b")
        #expect(state.timer(now: sweep * 3).map(\.waiter) == ["soon"])
        #expect(state.timer(now: sweep * 3 + 1).isEmpty)   // within one sweep interval: not looked at
        #expect(state.timer(now: sweep * 9).isEmpty)
        let expired = state.timer(now: sweep * 11)
        #expect(expired.map(\.waiter) == ["later"])
        #expect(expired.first?.queue == "q" && expired.first?.milliseconds == 10)
        #expect(state.replyArrived(correlationId: "b") == nil)
    }

    // MARK: Deliveries and acks

    @Test func onlyDeliveriesAwaitingAnAckAreTrackedAndOldGenerationsAreDropped() {
        var state = state(autoAcks: [false, true])
        #expect(!state.isCurrent(generation: 1))
        connect(&state)
        state.delivered(tag: 1, consumer: 0)
        state.delivered(tag: 2, consumer: 1)      // settled by the broker
        state.delivered(tag: 3, consumer: nil)    // a reply
        state.delivered(tag: 4, consumer: 0)
        #expect(state.unsettledCount == 2)
        #expect(state.isCurrent(generation: 1))
        let acks = state.acks(for: [1, 4])
        #expect(acks.upTo == 4 && acks.single.isEmpty)
        #expect(state.unsettledCount == 0)
        state.delivered(tag: 5, consumer: 0)
        state.rejected(tag: 5)
        #expect(state.unsettledCount == 0)
        _ = state.connectionLost()
        connect(&state)
        #expect(!state.isCurrent(generation: 1))
        #expect(state.isCurrent(generation: 2))
    }
}
