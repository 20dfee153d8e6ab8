/// Everything an `AMQPConnection` decides, as a value with no I/O: the connection's phase and channels, which
/// node and generation to try, the handshake to run on a new session, the pause before a retry, publisher
/// confirms, the RPC call table and the deliveries still unsettled. The I/O loop (`ConnectionLoop`) reports what
/// happened on the socket (events: the methods here) and does what the answers say (decisions: their results),
/// so every transition is tested without a broker. Generic over the waiters so that tests can use plain values.
struct AMQPConnectionState<CallWaiter, ConfirmWaiter> {
    typealias Call = RPCCallTable<CallWaiter>.Call

    /// Expired calls are looked for at most this often (in the clock's nanoseconds).
    static var sweepInterval: UInt64 { 5_000_000 }

    let setup: Setup
    private(set) var phase = Phase.disconnected
    private(set) var channels = Channels()
    private var lifecycle: ConnectionLifecycle
    private var confirms = ConfirmTracker<ConfirmWaiter>()
    private var calls = RPCCallTable<CallWaiter>()
    private var unsettled = UnsettledDeliveries()
    private var lastSweep: UInt64
    /// The generation of the session acks refer to: set while open, and while closing (a stop still flushes them).
    private var sessionGeneration: Int?

    init(setup: Setup, jitter: BackoffJitter = .random(), now: UInt64 = 0) {
        self.setup = setup
        lifecycle = ConnectionLifecycle(nodes: setup.nodes, jitter: jitter)
        lastSweep = now
    }

    var isOpen: Bool { if case .open = phase { true } else { false } }
    var generation: Int { lifecycle.generation }
    /// Connections made so far.
    var connections: Int { lifecycle.connections }
    var hasCallsWaiting: Bool { !calls.isEmpty }
    var unsettledCount: Int { unsettled.count }

    // MARK: Connecting

    /// Starts an attempt: the generation its deliveries carry and the node to try.
    mutating func attempt() -> (generation: Int, node: Int) {
        let attempt = lifecycle.attempt()
        phase = .connecting(generation: attempt.generation, node: attempt.node)
        return attempt
    }

    /// The session is open (TCP, login, the main channel): the steps to run on it before it counts as connected.
    /// Consumers come back on every new session unless they were cancelled (`consuming` false).
    mutating func sessionOpened(consuming: Bool) -> [HandshakeStep] {
        channels = Channels(main: .open)
        var steps: [HandshakeStep] = [.declareTopology]
        if !setup.autoAcks.isEmpty { steps.append(.setPrefetch) }
        if setup.receivesReplies { steps.append(.consumeReplies) }
        if consuming { steps += setup.autoAcks.indices.map { .consume(index: $0) } }
        if setup.confirmsPublishes { steps.append(.enableConfirms) }
        return steps
    }

    mutating func stepDone(_ step: HandshakeStep) {
        switch step {
        case .declareTopology, .setPrefetch: break
        case .consumeReplies: channels.consumingReplies = true
        case .consume(let index): channels.consuming.insert(index)
        case .enableConfirms: channels.confirms = .confirming
        }
    }

    /// The handshake is done; true when this is a reconnect (a connection was made before).
    mutating func connected() -> Bool {
        guard case .connecting(let generation, let node) = phase else {
            preconditionFailure("connected() outside an attempt")
        }
        lifecycle.connected()
        unsettled.reset()
        sessionGeneration = generation
        phase = .open(generation: generation, node: node)
        return lifecycle.connections > 1
    }

    /// The attempt failed (the session could not open, or a handshake step failed).
    mutating func connectFailed() -> Retry {
        let worthLogging = lifecycle.failureIsWorthLogging
        channels = Channels()
        let pause = lifecycle.connectFailed()
        phase = pause.map { .backingOff(seconds: $0) } ?? .disconnected
        return Retry(pauseSeconds: pause, worthLogging: worthLogging)
    }

    /// The pause after a failed attempt is over.
    mutating func backoffElapsed() {
        if case .backingOff = phase { phase = .disconnected }
    }

    /// An open connection failed (socket error, or the broker closed a channel or the connection): everything in
    /// flight fails, and the next attempt goes to the next node at once.
    mutating func connectionLost() -> Teardown {
        lifecycle.connectionLost()
        phase = .disconnected
        return teardown()
    }

    mutating func closing() {
        phase = .closing
    }

    /// The connection is closed for good (`stop`).
    mutating func closed() -> Teardown {
        phase = .closed
        return teardown()
    }

    private mutating func teardown() -> Teardown {
        channels = Channels()
        unsettled.reset()
        sessionGeneration = nil
        return Teardown(calls: calls.removeAll().map(\.waiter), confirms: confirms.reset())
    }

    // MARK: Publisher confirms

    /// `count` messages published on the confirm channel, settled together for `waiter`.
    mutating func publishedConfirmed(count: Int, waiter: ConfirmWaiter) {
        confirms.published(count: count, waiter: waiter)
    }

    /// A basic.ack or basic.nack on the confirm channel: the waiters it settles, refused when any of their
    /// messages was nacked.
    mutating func confirmed(tag: UInt64, multiple: Bool, negative: Bool) -> [(waiter: ConfirmWaiter, refused: Bool)] {
        confirms.settle(tag: tag, multiple: multiple, negative: negative)
    }

    // MARK: Request/reply

    mutating func callSent(_ call: Call, correlationId: String) {
        calls.register(call, correlationId: correlationId)
    }

    /// A delivery on the reply consumer: the call it answers, if that still waits.
    mutating func replyArrived(correlationId: String?) -> Call? {
        calls.reply(correlationId: correlationId)
    }

    /// The clock ticked: the calls now past their deadline (looked for once per `sweepInterval`).
    mutating func timer(now: UInt64) -> [Call] {
        guard now &- lastSweep > Self.sweepInterval else { return [] }
        lastSweep = now
        return calls.expire(now: now)
    }

    // MARK: Deliveries

    /// A delivery from the consumer at `consumer` (nil: the reply consumer, which the broker settles itself).
    mutating func delivered(tag: UInt64, consumer: Int?) {
        guard let consumer, !setup.autoAcks[consumer] else { return }
        unsettled.delivered(tag)
    }

    /// Whether an ack or reject still refers to this session: one from before a reconnect is dropped, the broker
    /// redelivers its message anyway.
    func isCurrent(generation: Int) -> Bool {
        generation == sessionGeneration
    }

    /// How to send acks taken together (see `UnsettledDeliveries.acks(for:)`).
    mutating func acks(for tags: [UInt64]) -> (upTo: UInt64?, single: [UInt64]) {
        unsettled.acks(for: tags)
    }

    /// The consumers were cancelled (a graceful stop begins); the reply consumer stays.
    mutating func consumersCancelled() {
        channels.consuming = []
    }

    mutating func rejected(tag: UInt64) {
        unsettled.settled(tag)
    }
}
