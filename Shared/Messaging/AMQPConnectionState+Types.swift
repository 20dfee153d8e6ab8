/// The vocabulary of `AMQPConnectionState`: its phases and channels, what it asks of a session, and the
/// decisions it hands back after a failure.
extension AMQPConnectionState {
    enum Phase: Equatable {
        /// Not connected, and the next attempt may start at once (first start, or after a lost connection).
        case disconnected
        case connecting(generation: Int, node: Int)
        /// Connected, the handshake done: deliveries flow and work is sent.
        case open(generation: Int, node: Int)
        /// An attempt failed on every node: the next one waits this long.
        case backingOff(seconds: Double)
        case closing
        case closed
    }

    enum ChannelState: Equatable { case closed, open, confirming }

    struct Channels: Equatable {
        var main = ChannelState.closed
        /// The second channel, in confirm mode, for `publishConfirmed`.
        var confirms = ChannelState.closed
        /// Consumers (by index in `Setup.autoAcks`) the broker delivers to on the main channel.
        var consuming: Set<Int> = []
        var consumingReplies = false
    }

    /// What the connection asks of each session.
    struct Setup: Sendable, Equatable {
        var nodes = 1
        /// One per consumer, in order: whether the broker settles its deliveries as it sends them.
        var autoAcks: [Bool] = []
        var receivesReplies = false
        var confirmsPublishes = false
    }

    enum HandshakeStep: Equatable {
        case declareTopology
        case setPrefetch
        case consumeReplies
        case consume(index: Int)
        case enableConfirms
    }

    /// What a lost or closed connection leaves to fail: the calls waiting for replies and the confirmed publishes
    /// the broker never confirmed (their publishers retry: the outbox relays again what it could not publish).
    struct Teardown {
        var calls: [CallWaiter]
        var confirms: [ConfirmWaiter]
    }

    /// After a failed attempt: when to try again (nil: at once, on the next node) and whether to warn about it.
    struct Retry: Equatable {
        var pauseSeconds: Double?
        var worthLogging: Bool
    }
}
