/// The two kinds of failure every service treats alike (docs/architecture.md, "Failures").
///
/// A deterministic failure gives the same result however often the work runs (bad input, a constraint, a bug):
/// it is answered at once and never retried. A transient one comes from the moment (a lost connection, a
/// database restarting or failing over, a broker gone): the work is tried again, with back-off, while the
/// request's deadline allows, and the client then gets 503 with `Retry-After`. An ambiguous one left the work
/// perhaps done (the connection lost while a transaction committed): running it again could apply it twice, and
/// a 503 would say it was not applied, so the client is told to read it back (as for a write that timed out).
public enum FailureKind: Sendable, Equatable {
    case deterministic
    case transient
    case ambiguous

    /// The kind of any error: what it says of itself, deterministic when it says nothing (an unknown failure run
    /// again would most likely fail again, and a retry loop on a bug only hides it).
    public static func of(_ error: any Error) -> FailureKind {
        (error as? any ClassifiedFailure)?.failureKind ?? .deterministic
    }
}

/// An error that knows whether running the work again may succeed.
public protocol ClassifiedFailure: Error {
    var failureKind: FailureKind { get }
}
