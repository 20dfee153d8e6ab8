/// Decisions about connecting, as a value: which attempt (generation) and node come next, and how long to pause
/// after a failure. The back-off starts at 0.1 s and doubles to 2 s, each pause shortened by its jitter; it applies
/// only once every node has failed in a row (`BrokerNodeRotation`), and a connection that worked starts it again.
/// Part of `AMQPConnectionState`, which the I/O loop (`ConnectionLoop`) asks and obeys.
struct ConnectionLifecycle: Sendable, Equatable {
    static let firstBackoff = 0.1
    static let longestBackoff = 2.0

    /// Counts attempts: deliveries carry it, so an ack from before a reconnect is told apart.
    private(set) var generation = 0
    private(set) var isConnected = false
    /// Connections made so far: above one, the last `connected()` was a reconnect.
    private(set) var connections = 0
    private(set) var backoffSeconds = firstBackoff
    private var rotation: BrokerNodeRotation
    private var jitter: BackoffJitter

    init(nodes: Int, jitter: BackoffJitter = .random()) {
        rotation = BrokerNodeRotation(count: nodes)
        self.jitter = jitter
    }

    /// Starts an attempt: its generation and the node to try.
    mutating func attempt() -> (generation: Int, node: Int) {
        generation += 1
        return (generation, rotation.current)
    }

    mutating func connected() {
        isConnected = true
        connections += 1
        backoffSeconds = Self.firstBackoff
        rotation.connected()
    }

    /// Whether a failed attempt is worth a warning: the first one, every one on a cluster, and those at the
    /// longest pause (the broker has been away a while); not each quick retry of a broker that is restarting.
    var failureIsWorthLogging: Bool {
        generation == 1 || backoffSeconds >= Self.longestBackoff || rotation.count > 1
    }

    /// After a failed attempt: the pause before the next one, or nil to try the next node at once.
    mutating func connectFailed() -> Double? {
        guard rotation.connectFailed() else { return nil }
        defer { backoffSeconds = min(backoffSeconds * 2, Self.longestBackoff) }
        return jitter.apply(to: backoffSeconds)
    }

    /// An established connection dropped: the next attempt goes to the next node, at once.
    mutating func connectionLost() {
        isConnected = false
        rotation.connectionLost()
    }
}
