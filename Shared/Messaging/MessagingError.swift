import ParseWire
import Runtime

public enum MessagingError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(String)
    /// Not connected to the broker right now (it is down or restarting); the connection retries by itself.
    case unavailable
    /// The connection dropped while the call was in flight: it may or may not have been handled.
    case connectionLost
    case timeout(queue: String, milliseconds: Int)
    case publishRejected(String)
    case malformedReply(String)

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid AMQP URL '\(url)'"
        case .unavailable: "the message broker is not reachable"
        case .connectionLost: "the connection to the message broker was lost"
        case .timeout(let queue, let ms): "'\(queue)' did not answer within \(ms) ms"
        case .publishRejected(let why): "the broker refused a message: \(why)"
        case .malformedReply(let why): "malformed reply: \(why)"
        }
    }

    /// What the client of a write sees: a service stops a write before its caller's deadline, but an answer
    /// delayed on its way back can still arrive after it, so a timed-out write may have been applied.
    public var parseErrorForWrite: ParseError {
        guard case .timeout(let queue, let ms) = self else { return parseError }
        return ParseError(.timeout, "Request timed out: the \(queue) service did not answer within \(ms) ms. "
                          + "The write may have been applied; read it back before sending it again.")
    }

    /// What the client of the gateway sees.
    public var parseError: ParseError {
        switch self {
        case .timeout(let queue, let ms):
            ParseError(.timeout, "Request timed out: the \(queue) service did not answer within \(ms) ms.")
        case .unavailable, .connectionLost:
            ParseError(.connectionFailed, "Service unavailable: the message broker is not reachable. Retry later.")
        case .invalidURL, .publishRejected, .malformedReply:
            .internalError
        }
    }
}

extension MessagingError: ClassifiedFailure {
    /// The broker gone or the connection lost is of the moment; a call that timed out is not run again (its
    /// callee may still be working on it), and the others would fail the same way.
    public var failureKind: FailureKind {
        switch self {
        case .unavailable, .connectionLost: .transient
        case .invalidURL, .timeout, .publishRejected, .malformedReply: .deterministic
        }
    }
}
